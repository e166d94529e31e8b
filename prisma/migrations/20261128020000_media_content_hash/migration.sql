-- Media deduplicated by content (issue 54): the SHA-256 of each file is kept when it is stored (an
-- upload or an import), and an import does not store a file whose bytes a media record of the
-- workspace already has; the record that named it points at the existing one. Null for media stored
-- before this column.
-- AlterTable
ALTER TABLE "Media" ADD COLUMN "contentHash" TEXT;

-- CreateIndex
CREATE INDEX "Media_workspaceId_contentHash_idx" ON "Media"("workspaceId", "contentHash");
