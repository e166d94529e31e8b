-- A tag's public posts, newest first, read from PostTag alone (issue 39): each link carries its post's
-- publication date while the post is published ("listedAt", null for a draft), kept by triggers so that
-- every write path (the writer's statements, imports, Prisma, raw SQL) keeps it right. A tag page then
-- counts and pages through one index of the tag's links, where it looked each tagged post up by its
-- primary key to check its status and date. Scheduled posts are published with a date ahead, so
-- `"listedAt" <= now` is exactly the public rule (src/content/post-visibility.ts).
ALTER TABLE "PostTag" ADD COLUMN "listedAt" TIMESTAMP(3);

UPDATE "PostTag" pt SET "listedAt" = p."publishedAt"
  FROM "Post" p WHERE p.id = pt."postId" AND p.status = 'published';

CREATE INDEX "PostTag_tagId_listedAt_postId_idx" ON "PostTag"("tagId", "listedAt" DESC, "postId");

-- A new link takes its post's date. Unqualified names: the connection's search_path (one schema per
-- deployment or test) decides the tables, as for every other statement.
CREATE FUNCTION "post_tag_listed_at"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT CASE WHEN p.status = 'published' THEN p."publishedAt" END INTO NEW."listedAt"
    FROM "Post" p WHERE p.id = NEW."postId";
  RETURN NEW;
END
$$;

CREATE TRIGGER "PostTag_listedAt" BEFORE INSERT OR UPDATE OF "postId" ON "PostTag"
  FOR EACH ROW EXECUTE FUNCTION "post_tag_listed_at"();

-- A post published, unpublished or re-dated moves its links with it (after the statement's own link
-- writes, so links it added in the same statement are set too).
CREATE FUNCTION "post_listing_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "PostTag" SET "listedAt" = CASE WHEN NEW.status = 'published' THEN NEW."publishedAt" END
   WHERE "postId" = NEW.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER "Post_listedAt" AFTER UPDATE OF status, "publishedAt" ON "Post"
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD."publishedAt" IS DISTINCT FROM NEW."publishedAt")
  EXECUTE FUNCTION "post_listing_moved"();
