-- The default locale's translation (the post's own columns) searches in that locale's text-search
-- configuration, as every other translation does in its own (issue 56): a workspace whose default is `de`
-- stems German. It was always English.

-- A post's search document in a configuration: title A, content B without its tags (the init migration's).
CREATE FUNCTION "post_search_document"(config regconfig, title text, content text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT setweight(to_tsvector(config, coalesce(title, '')), 'A')
    || setweight(to_tsvector(config, regexp_replace(coalesce(content, ''), '<[^>]+>', ' ', 'g')), 'B')
$$;

-- The configuration of a workspace's default locale (English if it has none, as before any locale).
CREATE FUNCTION "workspace_search_config"(workspace text) RETURNS regconfig
LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce(
    (SELECT "locale_search_config"("code") FROM "Locale" WHERE "workspaceId" = workspace AND "isDefault"),
    'english'::regconfig)
$$;

CREATE OR REPLACE FUNCTION "Post_search_update"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  NEW."search" := "post_search_document"("workspace_search_config"(NEW."workspaceId"), NEW."title", NEW."content");
  RETURN NEW;
END;
$$;

-- A locale that becomes its workspace's default (or a default whose code changes) rebuilds the documents
-- of the workspace's posts in its configuration: they are now its translation.
CREATE FUNCTION "Locale_default_search"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "Post"
     SET "search" = "post_search_document"("locale_search_config"(NEW."code"), "title", "content")
   WHERE "workspaceId" = NEW."workspaceId";
  RETURN NULL;
END;
$$;

CREATE TRIGGER "Locale_default_search_update"
AFTER UPDATE OF "isDefault", "code" ON "Locale"
FOR EACH ROW
WHEN (NEW."isDefault" AND (NOT OLD."isDefault" OR NEW."code" IS DISTINCT FROM OLD."code"))
EXECUTE FUNCTION "Locale_default_search"();

-- Posts of workspaces whose default locale is not English get documents in its configuration.
UPDATE "Post" SET "search" = "post_search_document"("workspace_search_config"("workspaceId"), "title", "content")
 WHERE "workspace_search_config"("workspaceId") <> 'english'::regconfig;
