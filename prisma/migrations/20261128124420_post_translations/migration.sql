-- Post translations (issue 56, docs/decisions.md "Post translations"): a post in each of its workspace's
-- locales other than the default, whose translation stays in the post's own columns; and PostSlug, the
-- registry of every post slug that makes slugs unique per locale or across locales, in the database.
-- CreateTable
CREATE TABLE "PostTranslation" (
    "postId" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "locale" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "status" "PostStatus" NOT NULL,
    "publishedAt" TIMESTAMP(3) NOT NULL,
    "releasedAt" TIMESTAMP(3),
    "previewGeneration" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "search" tsvector,

    CONSTRAINT "PostTranslation_pkey" PRIMARY KEY ("postId","locale")
);

-- CreateTable
CREATE TABLE "PostSlug" (
    "postId" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "locale" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "slug" TEXT NOT NULL,

    CONSTRAINT "PostSlug_pkey" PRIMARY KEY ("postId","locale")
);

-- CreateIndex
CREATE INDEX "PostTranslation_workspaceId_locale_status_publishedAt_idx" ON "PostTranslation"("workspaceId", "locale", "status", "publishedAt");

-- CreateIndex
CREATE INDEX "PostTranslation_status_releasedAt_publishedAt_idx" ON "PostTranslation"("status", "releasedAt", "publishedAt");

-- CreateIndex
CREATE INDEX "PostTranslation_search_idx" ON "PostTranslation" USING GIN ("search");

-- CreateIndex
CREATE UNIQUE INDEX "PostTranslation_workspaceId_locale_slug_key" ON "PostTranslation"("workspaceId", "locale", "slug");

-- CreateIndex
CREATE UNIQUE INDEX "PostSlug_workspaceId_scope_slug_key" ON "PostSlug"("workspaceId", "scope", "slug");

-- AddForeignKey
ALTER TABLE "PostTranslation" ADD CONSTRAINT "PostTranslation_postId_fkey" FOREIGN KEY ("postId") REFERENCES "Post"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PostTranslation" ADD CONSTRAINT "PostTranslation_workspaceId_locale_fkey" FOREIGN KEY ("workspaceId", "locale") REFERENCES "Locale"("workspaceId", "code") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PostSlug" ADD CONSTRAINT "PostSlug_postId_fkey" FOREIGN KEY ("postId") REFERENCES "Post"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The public lists of one locale, as Post's (20261126170000_post_published_index): a partial index of
-- the published translations alone (the schema language has no partial indexes; schema.prisma names it).
CREATE INDEX "PostTranslation_published_workspaceId_locale_publishedAt_idx"
  ON "PostTranslation" ("workspaceId", "locale", "publishedAt") WHERE "status" = 'published';

-- The text-search configuration of a locale: its language's, where PostgreSQL (or PGlite, which has the
-- same list) has one, else `simple` (words as they are, no stemming). By the code's language subtag:
-- `de-AT` searches as German. IMMUTABLE: the list of built-in configurations does not change.
CREATE FUNCTION "locale_search_config"(code text) RETURNS regconfig
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (CASE lower(split_part(code, '-', 1))
    WHEN 'ar' THEN 'arabic' WHEN 'hy' THEN 'armenian' WHEN 'eu' THEN 'basque' WHEN 'ca' THEN 'catalan'
    WHEN 'da' THEN 'danish' WHEN 'nl' THEN 'dutch' WHEN 'en' THEN 'english' WHEN 'fi' THEN 'finnish'
    WHEN 'fr' THEN 'french' WHEN 'de' THEN 'german' WHEN 'el' THEN 'greek' WHEN 'hi' THEN 'hindi'
    WHEN 'hu' THEN 'hungarian' WHEN 'id' THEN 'indonesian' WHEN 'ga' THEN 'irish' WHEN 'it' THEN 'italian'
    WHEN 'lt' THEN 'lithuanian' WHEN 'ne' THEN 'nepali' WHEN 'no' THEN 'norwegian' WHEN 'nb' THEN 'norwegian'
    WHEN 'nn' THEN 'norwegian' WHEN 'pt' THEN 'portuguese' WHEN 'ro' THEN 'romanian' WHEN 'ru' THEN 'russian'
    WHEN 'sr' THEN 'serbian' WHEN 'es' THEN 'spanish' WHEN 'sv' THEN 'swedish' WHEN 'ta' THEN 'tamil'
    WHEN 'tr' THEN 'turkish' WHEN 'yi' THEN 'yiddish'
    ELSE 'simple' END)::regconfig
$$;

-- A translation's search document, as the post's ("Post_search_update": title A, content B without its
-- tags) in its locale's configuration; rebuilt only when the title or the body really changed.
CREATE FUNCTION "PostTranslation_search_update"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  config regconfig := "locale_search_config"(NEW."locale");
BEGIN
  NEW."search" := setweight(to_tsvector(config, coalesce(NEW."title", '')), 'A')
    || setweight(to_tsvector(config, regexp_replace(coalesce(NEW."content", ''), '<[^>]+>', ' ', 'g')), 'B');
  RETURN NEW;
END;
$$;

CREATE TRIGGER "PostTranslation_search_insert"
BEFORE INSERT ON "PostTranslation"
FOR EACH ROW EXECUTE FUNCTION "PostTranslation_search_update"();

CREATE TRIGGER "PostTranslation_search_update"
BEFORE UPDATE OF "title", "content" ON "PostTranslation"
FOR EACH ROW
WHEN (OLD."title" IS DISTINCT FROM NEW."title" OR OLD."content" IS DISTINCT FROM NEW."content")
EXECUTE FUNCTION "PostTranslation_search_update"();

-- The default locale's translation is the post's own row: a PostTranslation in the workspace's default
-- locale, or in another workspace than its post's, is refused (the service checks first; this is the net).
CREATE FUNCTION "PostTranslation_check"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  is_default boolean;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "Post" p WHERE p."id" = NEW."postId" AND p."workspaceId" = NEW."workspaceId") THEN
    RAISE EXCEPTION 'PostTranslation of post % names another workspace', NEW."postId" USING ERRCODE = '23514';
  END IF;
  -- FOR SHARE: a locale becoming the default (which first checks it holds no translations, after
  -- locking its row, src/content/locales/locales.ts) and a translation of it take turns.
  SELECT l."isDefault" INTO is_default FROM "Locale" l
   WHERE l."workspaceId" = NEW."workspaceId" AND l."code" = NEW."locale" FOR SHARE;
  IF is_default THEN
    RAISE EXCEPTION 'Locale % is the default: its translation is the post itself', NEW."locale" USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER "PostTranslation_check"
BEFORE INSERT OR UPDATE OF "postId", "workspaceId", "locale" ON "PostTranslation"
FOR EACH ROW EXECUTE FUNCTION "PostTranslation_check"();

-- PostSlug is kept here, never by the service. A slug's scope: '' for the post's own slug (the default
-- locale's) and, when the workspace makes slugs unique across locales, for every slug; else the
-- translation's locale. The workspace row is read FOR SHARE, so a change of the setting (which rewrites
-- the scopes, src/content/posts/post-slugs.ts) and a slug write take turns: neither sees the other half done.
CREATE FUNCTION "post_slug_scope"(workspace text, locale text) RETURNS text
LANGUAGE sql AS $$
  SELECT CASE WHEN locale = '' OR w."slugsUniqueAcrossLocales" THEN '' ELSE locale END
    FROM "Workspace" w WHERE w."id" = workspace FOR SHARE
$$;

CREATE FUNCTION "Post_slug_sync"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "PostSlug" ("postId", "workspaceId", "locale", "scope", "slug")
    VALUES (NEW."id", NEW."workspaceId", '', "post_slug_scope"(NEW."workspaceId", ''), NEW."slug");
  ELSE
    UPDATE "PostSlug" SET "slug" = NEW."slug" WHERE "postId" = NEW."id" AND "locale" = '';
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "Post_slug_insert"
AFTER INSERT ON "Post"
FOR EACH ROW EXECUTE FUNCTION "Post_slug_sync"();

CREATE TRIGGER "Post_slug_update"
AFTER UPDATE OF "slug" ON "Post"
FOR EACH ROW WHEN (OLD."slug" IS DISTINCT FROM NEW."slug")
EXECUTE FUNCTION "Post_slug_sync"();

CREATE FUNCTION "PostTranslation_slug_sync"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO "PostSlug" ("postId", "workspaceId", "locale", "scope", "slug")
    VALUES (NEW."postId", NEW."workspaceId", NEW."locale", "post_slug_scope"(NEW."workspaceId", NEW."locale"), NEW."slug");
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE "PostSlug" SET "slug" = NEW."slug" WHERE "postId" = NEW."postId" AND "locale" = NEW."locale";
  ELSE
    DELETE FROM "PostSlug" WHERE "postId" = OLD."postId" AND "locale" = OLD."locale";
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER "PostTranslation_slug_insert"
AFTER INSERT OR DELETE ON "PostTranslation"
FOR EACH ROW EXECUTE FUNCTION "PostTranslation_slug_sync"();

CREATE TRIGGER "PostTranslation_slug_update"
AFTER UPDATE OF "slug" ON "PostTranslation"
FOR EACH ROW WHEN (OLD."slug" IS DISTINCT FROM NEW."slug")
EXECUTE FUNCTION "PostTranslation_slug_sync"();

-- Every existing post is in its workspace's default locale: its slug is registered as the default's.
INSERT INTO "PostSlug" ("postId", "workspaceId", "locale", "scope", "slug")
SELECT p."id", p."workspaceId", '', '', p."slug" FROM "Post" p;
