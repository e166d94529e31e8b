// The baseline: what this stack (Node + the same database driver) does at best for GET /v1/posts?limit=10
// (and the list's filters and ranked search, each like-for-like with a service route).
// A bare node:http handler with hand-written SQL — one count and one page query that aggregates authors,
// category, tags and custom fields as JSON in PostgreSQL — answering with the same JSON body as the
// service (post read form + pagination). API keys are checked like the service does (SHA-256 lookup,
// cached). PostgreSQL through `pg` when DATABASE_URL is set, else the embedded PGlite in DATA_DIR/db.
// Env: PORT, HOST, and the database variables of bench/raw-sql.ts.
import http from "node:http";
import { keyChecker, openSql } from "./raw-sql.ts";

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

/**
 * The list filters the bench exercises, hand-written with the contract's rules (published only): each
 * filtered route has a like-for-like baseline. `$1` is the workspace; other values are appended.
 */
function listQuery(url: URL, workspaceId: string) {
  const values: unknown[] = [workspaceId];
  const add = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  const slugs = (name: string) => url.searchParams.get(name)?.split(",").filter(Boolean) ?? [];
  // Public now: published, and its date not ahead (src/content/post-visibility.ts).
  const where = [
    `p."workspaceId" = $1`,
    `p.status = 'published'`,
    `p."publishedAt" <= now() AT TIME ZONE 'UTC'`,
  ];
  const categories = slugs("categories");
  if (categories.length)
    where.push(
      `p."categoryId" = ANY(ARRAY(SELECT id FROM "Category" WHERE "workspaceId" = $1 AND slug = ANY(${add(categories)})))`,
    );
  const tagged = (list: string[]) =>
    `SELECT "postId" FROM "PostTag" WHERE "tagId" = ANY(ARRAY(SELECT id FROM "Tag" WHERE "workspaceId" = $1 AND slug = ANY(${add(list)})))`;
  const tags = slugs("tags");
  if (tags.length) where.push(`p.id = ANY(ARRAY(${tagged(tags)}))`);
  const excludeTags = slugs("excludeTags");
  if (excludeTags.length) where.push(`p.id NOT IN (${tagged(excludeTags)})`);
  const featured = url.searchParams.get("featured");
  if (featured !== null) where.push(`p.featured = ${add(featured === "true")}`);
  const text = url.searchParams.get("query")?.trim();
  if (!text)
    return { values, join: "", where: where.join(" AND "), orderBy: `p."publishedAt" DESC, p.id ASC` };
  // The service's ranked search: the best 1,000 matches of the workspace, then the other filters.
  const q = `websearch_to_tsquery('english', ${add(text)})`;
  const join = `JOIN (SELECT id, row_number() OVER (ORDER BY ts_rank(search, ${q}) DESC, "publishedAt" DESC, id) AS rank
                  FROM "Post" WHERE "workspaceId" = $1 AND search @@ ${q}
                 ORDER BY rank LIMIT 1000) m ON m.id = p.id`;
  return { values, join, where: where.join(" AND "), orderBy: "m.rank" };
}

const PAGE_SQL = (join: string, where: string, orderBy: string, limit: string, offset: string) => `
SELECT p.id, p.slug, p.title, p.status::text AS status, p.featured, p."coverImage", p.description,
  to_char(p."publishedAt", ${ISO}) AS "publishedAt",
  (p.status = 'published' AND p."publishedAt" > now() AT TIME ZONE 'UTC') AS scheduled,
  to_char(p."updatedAt", ${ISO}) AS "updatedAt",
  p.attribution, p.content,
  (SELECT coalesce(json_agg(json_build_object('id', a.id, 'name', a.name, 'image', a.image, 'bio', a.bio,
            'role', a.role, 'slug', a.slug, 'socials', a.socials) ORDER BY pa.position), '[]')
     FROM "PostAuthor" pa JOIN "Author" a ON a.id = pa."authorId" WHERE pa."postId" = p.id) AS authors,
  json_build_object('id', c.id, 'name', c.name, 'slug', c.slug, 'description', c.description) AS category,
  (SELECT coalesce(json_agg(json_build_object('id', t.id, 'name', t.name, 'slug', t.slug, 'description', t.description)
            ORDER BY t.name, t.id), '[]')
     FROM "PostTag" pt JOIN "Tag" t ON t.id = pt."tagId" WHERE pt."postId" = p.id) AS tags,
  (SELECT coalesce(json_object_agg(f.key, v.value ORDER BY f.position, f."createdAt"), '{}')
     FROM "Field" f LEFT JOIN "PostFieldValue" v ON v."fieldId" = f.id AND v."postId" = p.id
    WHERE f."workspaceId" = p."workspaceId") AS fields
FROM "Post" p ${join} JOIN "Category" c ON c.id = p."categoryId"
WHERE ${where}
ORDER BY ${orderBy}
LIMIT ${limit} OFFSET ${offset}`;

const sql = await openSql();

const workspaceOf = keyChecker(sql);

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

async function listPosts(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
  const workspaceId = await workspaceOf(req.headers.authorization);
  if (!workspaceId) return send(res, 401, { error: "Unauthorized", message: "A valid API key is required" });
  const limit = Number(url.searchParams.get("limit") ?? 10);
  const page = Number(url.searchParams.get("page") ?? 1);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100 || !Number.isInteger(page) || page < 1) {
    return send(res, 400, {
      error: "Invalid query parameters",
      details: [],
      message: "limit 1-100, page ≥ 1",
    });
  }
  const { values, join, where, orderBy } = listQuery(url, workspaceId);
  const pageValues = [...values, limit, (page - 1) * limit];
  const [counted, posts] = await Promise.all([
    sql.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM "Post" p ${join} WHERE ${where}`,
      values,
    ),
    sql.query<Record<string, unknown>>(
      PAGE_SQL(join, where, orderBy, `$${values.length + 1}`, `$${values.length + 2}`),
      pageValues,
    ),
  ]);
  const totalItems = counted[0]?.total ?? 0;
  const totalPages = Math.ceil(totalItems / limit);
  const currentPage = totalItems === 0 ? 1 : page;
  send(res, 200, {
    posts,
    pagination: {
      limit,
      currentPage,
      nextPage: currentPage < totalPages ? currentPage + 1 : null,
      previousPage: currentPage > 1 ? currentPage - 1 : null,
      totalPages,
      totalItems,
    },
  });
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://baseline");
  const route =
    req.method === "GET" && url.pathname === "/v1/posts"
      ? listPosts(req, res, url)
      : req.method === "GET" && url.pathname === "/ready"
        ? sql.query("SELECT 1", []).then(() => send(res, 200, { status: "ready" }))
        : Promise.resolve(send(res, 404, { error: "Not found" }));
  route.catch((error: unknown) => {
    process.stderr.write(`baseline: ${(error as Error).stack ?? String(error)}\n`);
    if (!res.headersSent) send(res, 500, { error: "Internal server error", message: "Unexpected error." });
  });
});

server.listen(Number(process.env.PORT ?? 3100), process.env.HOST ?? "127.0.0.1");

const shutdown = () => {
  server.close(() => {
    void sql.close().then(() => process.exit(0));
  });
  server.closeIdleConnections();
};
process.on("SIGTERM", shutdown);
process.on("SIGINT", shutdown);
