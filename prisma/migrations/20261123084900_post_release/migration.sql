-- AlterTable
ALTER TABLE "Post" ADD COLUMN     "releasedAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Post_status_releasedAt_publishedAt_idx" ON "Post"("status", "releasedAt", "publishedAt");

-- Posts already public were released when they were published: only those dated ahead wait for the
-- scheduler (their post.published event had been recorded before scheduling existed; they get one more).
UPDATE "Post" SET "releasedAt" = "publishedAt" WHERE status = 'published' AND "publishedAt" <= now() AT TIME ZONE 'UTC';
