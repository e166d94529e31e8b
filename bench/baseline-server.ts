// The baseline: what this stack (Node + the same database driver) does at best for GET /v1/posts?limit=10.
// A bare node:http handler with hand-written SQL — one count and one page query that aggregates authors,
// category, tags and custom fields as JSON in PostgreSQL — answering with the same JSON body as the
// service (post read form + pagination). API keys are checked like the service does (SHA-256 lookup,
// cached). PostgreSQL through `pg` when DATABASE_URL is set, else the embedded PGlite in DATA_DIR/db.
// Env: PORT, HOST, and the database variables of bench/raw-sql.ts.
import http from "node:http";
import { keyChecker, openSql } from "./raw-sql.ts";

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

const COUNT_SQL = `SELECT count(*)::int AS total FROM "Post" WHERE "workspaceId" = $1 AND status = 'published'`;

const PAGE_SQL = `
SELECT p.id, p.slug, p.title, p.status::text AS status, p.featured, p."coverImage", p.description,
  to_char(p."publishedAt", ${ISO}) AS "publishedAt",
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
FROM "Post" p JOIN "Category" c ON c.id = p."categoryId"
WHERE p."workspaceId" = $1 AND p.status = 'published'
ORDER BY p."publishedAt" DESC, p.id ASC
LIMIT $2 OFFSET $3`;

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
  const [counted, posts] = await Promise.all([
    sql.query<{ total: number }>(COUNT_SQL, [workspaceId]),
    sql.query<Record<string, unknown>>(PAGE_SQL, [workspaceId, limit, (page - 1) * limit]),
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
