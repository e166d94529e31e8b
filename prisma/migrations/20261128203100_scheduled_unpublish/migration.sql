-- Scheduled unpublishing (issue 56): a post, and each of its translations, may name the moment it goes
-- back to draft. The scheduler scans for due ones by this column (src/content/posts/post-release.ts).
-- AlterTable
ALTER TABLE "Post" ADD COLUMN     "unpublishAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "PostTranslation" ADD COLUMN     "unpublishAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Post_unpublishAt_idx" ON "Post"("unpublishAt");

-- CreateIndex
CREATE INDEX "PostTranslation_unpublishAt_idx" ON "PostTranslation"("unpublishAt");
