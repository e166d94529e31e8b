-- Scheduled unpublishing is part of the public rule (src/content/post-visibility.ts): a published post
-- is public while its "unpublishAt" is unset or ahead. The public lists count through the partial
-- indexes of the published posts and translations (20261126170000_post_published_index,
-- 20261128124420_post_translations) with index-only scans; with the new condition those would visit the
-- table for every entry to read "unpublishAt". Carrying the column in the indexes (INCLUDE: not a key,
-- nothing to sort by) keeps the count an index-only scan.
DROP INDEX "Post_published_workspaceId_publishedAt_idx";
CREATE INDEX "Post_published_workspaceId_publishedAt_idx" ON "Post"("workspaceId", "publishedAt")
  INCLUDE ("unpublishAt") WHERE status = 'published';

DROP INDEX "PostTranslation_published_workspaceId_locale_publishedAt_idx";
CREATE INDEX "PostTranslation_published_workspaceId_locale_publishedAt_idx"
  ON "PostTranslation" ("workspaceId", "locale", "publishedAt") INCLUDE ("unpublishAt") WHERE "status" = 'published';
