-- Post ↔ tag becomes an explicit model (PostTag). Written as renames rather than the drop and create
-- the schema engine proposes, so existing tag assignments are kept. The result is exactly what the
-- engine would create (test/db/migrations-in-sync.test.ts checks that).

-- RenameTable
ALTER TABLE "_PostToTag" RENAME TO "PostTag";

-- RenameColumns
ALTER TABLE "PostTag" RENAME COLUMN "A" TO "postId";
ALTER TABLE "PostTag" RENAME COLUMN "B" TO "tagId";

-- RenamePrimaryKey
ALTER TABLE "PostTag" RENAME CONSTRAINT "_PostToTag_AB_pkey" TO "PostTag_pkey";

-- RenameIndex
ALTER INDEX "_PostToTag_B_index" RENAME TO "PostTag_tagId_idx";

-- RenameForeignKey
ALTER TABLE "PostTag" RENAME CONSTRAINT "_PostToTag_A_fkey" TO "PostTag_postId_fkey";
ALTER TABLE "PostTag" RENAME CONSTRAINT "_PostToTag_B_fkey" TO "PostTag_tagId_fkey";
