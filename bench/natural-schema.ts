// The schema a PostGraphile user would write for the bench's content (issue 59): plain tables with serial
// keys, `slug` unique, one author per post, a `posts_tags` join table, indexes on the foreign keys (which
// PostGraphile's documentation asks for: it hides the reverse relation of an unindexed foreign key) and
// on status + date. Nothing in it is shaped for this service: no workspace column, no denormalised
// listing columns. `bench:peers` runs a second PostGraphile over it beside the one over our tables.
//
// It lives in a PostgreSQL schema of its own next to the bench schema, and is seeded from that schema's
// seeded tables (INSERT … SELECT), so both PostGraphiles and the service answer from the same content:
// the same posts (published and drafts), slugs, titles and bodies, the same categories, tags and authors.
import pg from "pg";

export interface NaturalSchema {
  /** DATABASE_URL and DATABASE_SCHEMA for the PostGraphile that serves it. */
  env: Record<string, string>;
  counts: { posts: number; postsTags: number };
}

const naturalSchemaName = (benchEnv: Record<string, string>) => `${benchEnv.DATABASE_SCHEMA}_natural`;

const TABLES = `
CREATE TYPE post_status AS ENUM ('draft', 'published');

CREATE TABLE authors (
  id serial PRIMARY KEY,
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  bio text,
  image text,
  role text
);

CREATE TABLE categories (
  id serial PRIMARY KEY,
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  description text
);

CREATE TABLE tags (
  id serial PRIMARY KEY,
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  description text
);

CREATE TABLE posts (
  id serial PRIMARY KEY,
  slug text NOT NULL UNIQUE,
  title text NOT NULL,
  description text NOT NULL,
  content text NOT NULL,
  status post_status NOT NULL DEFAULT 'draft',
  published_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  featured boolean NOT NULL DEFAULT false,
  cover_image text,
  author_id int NOT NULL REFERENCES authors,
  category_id int REFERENCES categories
);

CREATE TABLE posts_tags (
  post_id int NOT NULL REFERENCES posts ON DELETE CASCADE,
  tag_id int NOT NULL REFERENCES tags ON DELETE CASCADE,
  PRIMARY KEY (post_id, tag_id)
);

-- The listing: published posts, newest first. Also what lets PostGraphile's amber preset offer
-- condition { status } and orderBy PUBLISHED_AT (it hides both on unindexed columns).
CREATE INDEX posts_status_published_at_idx ON posts (status, published_at DESC);
-- Foreign keys: posts_tags.post_id is the primary key's first column already.
CREATE INDEX posts_author_id_idx ON posts (author_id);
CREATE INDEX posts_category_id_idx ON posts (category_id);
CREATE INDEX posts_tags_tag_id_idx ON posts_tags (tag_id);
`;

/**
 * The workspace's content, copied by slug. Posts are inserted in order of publication, so their serial
 * ids follow it (as in a blog whose posts are written in that order).
 */
function seedStatements(from: string, workspaceId: string): { text: string; values: string[] }[] {
  const ws = [workspaceId];
  return [
    {
      text: `INSERT INTO authors (name, slug, bio, image, role)
             SELECT name, slug, bio, image, role FROM "${from}"."Author"
              WHERE "workspaceId" = $1 ORDER BY "createdAt", id`,
      values: ws,
    },
    {
      text: `INSERT INTO categories (name, slug, description)
             SELECT name, slug, description FROM "${from}"."Category"
              WHERE "workspaceId" = $1 ORDER BY "createdAt", id`,
      values: ws,
    },
    {
      text: `INSERT INTO tags (name, slug, description)
             SELECT name, slug, description FROM "${from}"."Tag"
              WHERE "workspaceId" = $1 ORDER BY "createdAt", id`,
      values: ws,
    },
    // One author per post: ours lists authors by position; the first is the natural schema's author.
    {
      text: `INSERT INTO posts (slug, title, description, content, status, published_at, updated_at,
                                featured, cover_image, author_id, category_id)
             SELECT p.slug, p.title, p.description, p.content, p.status::text::post_status,
                    p."publishedAt" AT TIME ZONE 'UTC', p."updatedAt" AT TIME ZONE 'UTC',
                    p.featured, p."coverImage", a.id, c.id
               FROM "${from}"."Post" p
               JOIN LATERAL (SELECT pa."authorId" FROM "${from}"."PostAuthor" pa
                              WHERE pa."postId" = p.id ORDER BY pa.position LIMIT 1) first ON true
               JOIN "${from}"."Author" oa ON oa.id = first."authorId"
               JOIN authors a ON a.slug = oa.slug
               JOIN "${from}"."Category" oc ON oc.id = p."categoryId"
               JOIN categories c ON c.slug = oc.slug
              WHERE p."workspaceId" = $1
              ORDER BY p."publishedAt", p.id`,
      values: ws,
    },
    {
      text: `INSERT INTO posts_tags (post_id, tag_id)
             SELECT np.id, nt.id
               FROM "${from}"."PostTag" pt
               JOIN "${from}"."Post" p ON p.id = pt."postId"
               JOIN "${from}"."Tag" t ON t.id = pt."tagId"
               JOIN posts np ON np.slug = p.slug
               JOIN tags nt ON nt.slug = t.slug
              WHERE p."workspaceId" = $1`,
      values: ws,
    },
  ];
}

/** Creates `<bench schema>_natural` and seeds it from the bench schema's workspace; then ANALYZE. */
export async function createNaturalSchema(
  benchEnv: Record<string, string>,
  workspaceId: string,
  options: { analyze: boolean },
): Promise<NaturalSchema> {
  const from = benchEnv.DATABASE_SCHEMA as string;
  const connectionString = benchEnv.DATABASE_URL as string;
  const schema = naturalSchemaName(benchEnv);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query(`CREATE SCHEMA "${schema}"`);
    await client.query(`SET search_path = "${schema}"`);
    await client.query(TABLES);
    for (const statement of seedStatements(from, workspaceId)) await client.query(statement);
    if (options.analyze) await client.query("VACUUM ANALYZE posts, posts_tags, authors, categories, tags");
    else
      for (const table of ["posts", "posts_tags", "authors", "categories", "tags"])
        await client.query(`ALTER TABLE ${table} SET (autovacuum_enabled = false)`);
    await client.query("CHECKPOINT");
    const counts = await client.query<{ posts: number; posts_tags: number }>(
      "SELECT (SELECT count(*)::int FROM posts) AS posts, (SELECT count(*)::int FROM posts_tags) AS posts_tags",
    );
    const row = counts.rows[0] as { posts: number; posts_tags: number };
    return {
      env: { DATABASE_URL: connectionString, DATABASE_SCHEMA: schema },
      counts: { posts: row.posts, postsTags: row.posts_tags },
    };
  } finally {
    await client.end().catch(() => {});
  }
}

/** Drops the natural schema of a bench schema, whether or not it was made (the bench's `finally`). */
export async function dropNaturalSchema(benchEnv: Record<string, string>): Promise<void> {
  const dropper = new pg.Client({ connectionString: benchEnv.DATABASE_URL });
  try {
    await dropper.connect();
    await dropper.query(`DROP SCHEMA IF EXISTS "${naturalSchemaName(benchEnv)}" CASCADE`);
  } finally {
    await dropper.end().catch(() => {});
  }
}
