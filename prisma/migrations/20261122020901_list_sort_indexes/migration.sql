-- DropIndex
DROP INDEX "Category_workspaceId_createdAt_idx";

-- DropIndex
DROP INDEX "Tag_workspaceId_createdAt_idx";

-- CreateIndex
CREATE INDEX "Author_workspaceId_name_idx" ON "Author"("workspaceId", "name");

-- CreateIndex
CREATE INDEX "Category_workspaceId_name_idx" ON "Category"("workspaceId", "name");

-- CreateIndex
CREATE INDEX "Tag_workspaceId_name_idx" ON "Tag"("workspaceId", "name");
