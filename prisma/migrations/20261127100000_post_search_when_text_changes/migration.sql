-- The search vector was rebuilt on every UPDATE naming "title" or "content", and the post update
-- (src/content/posts/post-write-sql.ts) names both in every statement (`title = COALESCE($2, title)`), so a
-- status, date, cover or feature edit re-parsed the whole body: ~1 ms of PostgreSQL's CPU for a 3 KB
-- post. Now an update rebuilds it only when the title or the body really changed. An INSERT has no OLD
-- row to compare, so it keeps a trigger of its own; both run the same function.
DROP TRIGGER "Post_search_update" ON "Post";

CREATE TRIGGER "Post_search_insert"
BEFORE INSERT ON "Post"
FOR EACH ROW EXECUTE FUNCTION "Post_search_update"();

CREATE TRIGGER "Post_search_update"
BEFORE UPDATE OF "title", "content" ON "Post"
FOR EACH ROW
WHEN (OLD."title" IS DISTINCT FROM NEW."title" OR OLD."content" IS DISTINCT FROM NEW."content")
EXECUTE FUNCTION "Post_search_update"();
