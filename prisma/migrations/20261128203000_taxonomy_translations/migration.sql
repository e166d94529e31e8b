-- Category, tag and author translations (issue 56, docs/decisions.md "Taxonomy translations"): the name
-- and description (an author's bio) in each locale of the workspace other than the default, whose stay in
-- the record's own columns. One table per kind, so that each row has a real foreign key to its record.

-- CreateTable
CREATE TABLE "CategoryTranslation" (
    "categoryId" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "locale" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CategoryTranslation_pkey" PRIMARY KEY ("categoryId","locale")
);

-- CreateIndex
CREATE INDEX "CategoryTranslation_workspaceId_locale_idx" ON "CategoryTranslation"("workspaceId", "locale");

-- AddForeignKey
ALTER TABLE "CategoryTranslation" ADD CONSTRAINT "CategoryTranslation_categoryId_fkey" FOREIGN KEY ("categoryId") REFERENCES "Category"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CategoryTranslation" ADD CONSTRAINT "CategoryTranslation_workspaceId_locale_fkey" FOREIGN KEY ("workspaceId", "locale") REFERENCES "Locale"("workspaceId", "code") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "TagTranslation" (
    "tagId" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "locale" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TagTranslation_pkey" PRIMARY KEY ("tagId","locale")
);

-- CreateIndex
CREATE INDEX "TagTranslation_workspaceId_locale_idx" ON "TagTranslation"("workspaceId", "locale");

-- AddForeignKey
ALTER TABLE "TagTranslation" ADD CONSTRAINT "TagTranslation_tagId_fkey" FOREIGN KEY ("tagId") REFERENCES "Tag"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TagTranslation" ADD CONSTRAINT "TagTranslation_workspaceId_locale_fkey" FOREIGN KEY ("workspaceId", "locale") REFERENCES "Locale"("workspaceId", "code") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "AuthorTranslation" (
    "authorId" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "locale" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "bio" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AuthorTranslation_pkey" PRIMARY KEY ("authorId","locale")
);

-- CreateIndex
CREATE INDEX "AuthorTranslation_workspaceId_locale_idx" ON "AuthorTranslation"("workspaceId", "locale");

-- AddForeignKey
ALTER TABLE "AuthorTranslation" ADD CONSTRAINT "AuthorTranslation_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "Author"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AuthorTranslation" ADD CONSTRAINT "AuthorTranslation_workspaceId_locale_fkey" FOREIGN KEY ("workspaceId", "locale") REFERENCES "Locale"("workspaceId", "code") ON DELETE CASCADE ON UPDATE CASCADE;

-- The default locale's name is the record's own: a translation in the workspace's default locale, or in
-- another workspace than its record's, is refused (the service checks first; this is the net), as
-- PostTranslation_check does. TG_ARGV: the record's table and the translation's column naming it.
CREATE FUNCTION "taxonomy_translation_check"() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
  is_default boolean;
  same_workspace boolean;
BEGIN
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I r WHERE r."id" = ($1).%I AND r."workspaceId" = ($1)."workspaceId")',
                 TG_ARGV[0], TG_ARGV[1])
     INTO same_workspace USING NEW;
  IF NOT same_workspace THEN
    RAISE EXCEPTION '% of % names another workspace', TG_TABLE_NAME, TG_ARGV[0] USING ERRCODE = '23514';
  END IF;
  -- FOR SHARE: a locale becoming the default (src/content/locales/locales.ts) and a translation of it take turns.
  SELECT l."isDefault" INTO is_default FROM "Locale" l
   WHERE l."workspaceId" = NEW."workspaceId" AND l."code" = NEW."locale" FOR SHARE;
  IF is_default THEN
    RAISE EXCEPTION 'Locale % is the default: its name is the record''s own', NEW."locale" USING ERRCODE = '23514';
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER "CategoryTranslation_check"
BEFORE INSERT OR UPDATE OF "categoryId", "workspaceId", "locale" ON "CategoryTranslation"
FOR EACH ROW EXECUTE FUNCTION "taxonomy_translation_check"('Category', 'categoryId');

CREATE TRIGGER "TagTranslation_check"
BEFORE INSERT OR UPDATE OF "tagId", "workspaceId", "locale" ON "TagTranslation"
FOR EACH ROW EXECUTE FUNCTION "taxonomy_translation_check"('Tag', 'tagId');

CREATE TRIGGER "AuthorTranslation_check"
BEFORE INSERT OR UPDATE OF "authorId", "workspaceId", "locale" ON "AuthorTranslation"
FOR EACH ROW EXECUTE FUNCTION "taxonomy_translation_check"('Author', 'authorId');
