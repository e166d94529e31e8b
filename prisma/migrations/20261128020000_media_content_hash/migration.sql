-- Media deduplicated by content (issue 54): an import stores the SHA-256 of each file it stores, and a
-- file whose bytes a media record of the workspace already has is not stored again; the record that
-- named it points at the existing one. Null for uploads and for media stored before this column.
-- AlterTable
ALTER TABLE "Media" ADD COLUMN "contentHash" TEXT;

-- CreateIndex
CREATE INDEX "Media_workspaceId_contentHash_idx" ON "Media"("workspaceId", "contentHash");
