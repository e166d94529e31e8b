// A workspace as its /v1 API shows it, made comparable across workspaces and stores: ids, the media
// host's URLs and creation timestamps differ by nature after an import, everything else must not.
import type { TestApp } from "../../helpers/test-app.ts";

const MEDIA_URL = /https?:\/\/[^"\s]*?\/[A-Za-z0-9_-]{8,64}\/[0-9a-f]{32}\.[a-z0-9]{1,5}/g;
const ID_KEYS = new Set(["id", "actorKeyId", "workspaceId", "resourceId"]);

/** Media URLs become their extension only; id keys and createdAt are dropped, at any depth. */
export function comparable(value: unknown): unknown {
  if (typeof value === "string") return value.replace(MEDIA_URL, (url) => `<media>.${url.split(".").pop()}`);
  if (Array.isArray(value)) return value.map(comparable);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !ID_KEYS.has(key) && key !== "createdAt")
        .map(([key, inner]) => [key, comparable(inner)]),
    );
  return value;
}

/** Every GET of the workspace's content, by path (posts by slug, with their revisions). */
export async function apiSnapshot(app: TestApp, key: string): Promise<Record<string, unknown>> {
  const get = async (path: string) => {
    const res = await app.request("GET", path, { key });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as Record<string, unknown>;
  };
  const snapshot: Record<string, unknown> = {};
  for (const path of [
    "/v1/posts?status=all&limit=100",
    "/v1/posts?limit=100",
    "/v1/categories?limit=100",
    "/v1/tags?limit=100",
    "/v1/authors?limit=100",
    "/v1/fields",
    "/v1/media?limit=100",
    "/v1/webhooks",
  ])
    snapshot[path] = await get(path);
  const posts = (snapshot["/v1/posts?status=all&limit=100"] as { posts: { slug: string }[] }).posts;
  for (const { slug } of posts) {
    snapshot[`/v1/posts/${slug}`] = await get(`/v1/posts/${slug}?status=all`);
    snapshot[`/v1/posts/${slug}/revisions`] = await get(`/v1/posts/${slug}/revisions?limit=100`);
  }
  return comparable(snapshot) as Record<string, unknown>;
}
