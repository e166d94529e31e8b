-- Revisions per translation (issue 56): the translation a revision's write was for; null for the
-- default locale's (the post's own row), which every revision written before was.
-- AlterTable
ALTER TABLE "PostRevision" ADD COLUMN     "locale" TEXT;

-- CreateIndex
CREATE INDEX "PostRevision_postId_locale_number_idx" ON "PostRevision"("postId", "locale", "number");
