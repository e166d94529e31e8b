-- The locales a post event concerns (issue 56): the translation a write names, or every translation of
-- the post when it changed what they all show (shared fields) or removed the post; and those of them
-- that were public before or after the change, which is all a public key may be told of. Empty for the
-- events of records that have no translations (categories, tags, authors, media, fields, locales…):
-- they concern every locale. `/v1/events`, `/v1/changes` and subscriptions filter on them.
-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "locales" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "publicLocales" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- Post events written before: the translation their data names, else the workspace's default locale;
-- public when the form they carry was (a departure always: it says a public form left).
UPDATE "Event" e SET
  "locales" = ARRAY[c.code],
  "publicLocales" = CASE
    WHEN e.type IN ('post.published', 'post.unpublished', 'post.deleted')
      OR (e.data->>'status' = 'published' AND (e.data->>'publishedAt')::timestamptz <= e."createdAt" AT TIME ZONE 'UTC')
    THEN ARRAY[c.code] ELSE ARRAY[]::TEXT[] END
FROM (
  SELECT x.id, COALESCE(x.data->>'locale',
    (SELECT l.code FROM "Locale" l WHERE l."workspaceId" = x."workspaceId" AND l."isDefault")) AS code
  FROM "Event" x WHERE x.type LIKE 'post.%'
) c
WHERE c.id = e.id AND c.code IS NOT NULL;
