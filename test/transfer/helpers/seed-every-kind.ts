// A workspace with every kind of record an export carries, made through the REST API: categories, tags,
// authors, custom fields of several types, an uploaded image used as a cover and inside a body,
// published, draft and scheduled posts with field values and several revisions, a webhook endpoint.
import { expect } from "vitest";
import type { TestApp, TestWorkspace } from "../../helpers/test-app.ts";
import { makeImage } from "../../media/helpers/make-files.ts";

export async function seedEveryKind(app: TestApp, ws: TestWorkspace, receiverUrl: string) {
  const call = async (method: string, path: string, body: unknown, expected: number) => {
    const res = await app.request(method, path, { key: ws.privateKey, body });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(expected);
    return res.body;
  };
  const form = new FormData();
  form.append("alt", "A gradient");
  form.append(
    "file",
    new Blob([new Uint8Array(await makeImage("png"))], { type: "image/png" }),
    "gradient.png",
  );
  const uploaded = await fetch(`${app.url}/v1/media/upload`, {
    method: "POST",
    headers: { authorization: ws.privateKey },
    body: form,
  });
  expect(uploaded.status).toBe(201);
  const media = ((await uploaded.json()) as { media: { url: string } }).media;

  const ids = new Map<string, string>();
  const made = async (path: string, wrapper: string, body: Record<string, unknown>) => {
    const answer = await call("POST", path, body, 201);
    ids.set(String(body.slug), answer[wrapper].id);
  };
  const id = (slug: string) => ids.get(slug) as string;
  await made("/v1/categories", "category", { name: "Guides", slug: "guides", description: "How-tos" });
  await made("/v1/categories", "category", { name: "News", slug: "news" });
  await made("/v1/tags", "tag", { name: "Rust", slug: "rust" });
  await made("/v1/tags", "tag", { name: "Go", slug: "go", description: "The language" });
  await made("/v1/authors", "author", {
    name: "Ada Lovelace",
    slug: "ada",
    bio: "Writes",
    role: "Editor",
    image: media.url,
    socials: [{ platform: "github", url: "https://github.com/ada" }],
  });
  await made("/v1/authors", "author", { name: "Brian Kernighan", slug: "bwk" });
  await call("POST", "/v1/fields", { key: "reading_time", name: "Reading time", type: "number" }, 201);
  await call(
    "POST",
    "/v1/fields",
    {
      key: "series",
      name: "Series",
      type: "select",
      options: [
        { value: "basics", label: "Basics" },
        { value: "advanced", label: "Advanced" },
      ],
    },
    201,
  );
  const post = (slug: string, extra: Record<string, unknown>) =>
    call(
      "POST",
      "/v1/posts",
      {
        title: `Title of ${slug}`,
        slug,
        description: `About ${slug}`,
        content: `<p>Body of ${slug}</p><p><img src="${media.url}" alt="gradient"></p>`,
        categoryId: id("guides"),
        ...extra,
      },
      201,
    );
  await post("published-post", {
    status: "published",
    publishedAt: "2024-03-01T10:00:00.000Z",
    coverImage: media.url,
    tags: [id("rust"), id("go")],
    authors: [id("ada"), id("bwk")],
    featured: true,
    fields: { reading_time: 7, series: "basics" },
  });
  await post("draft-post", {
    status: "draft",
    tags: [id("go")],
    authors: [id("bwk")],
    categoryId: id("news"),
  });
  const ahead = new Date(Date.now() + 30 * 86_400_000).toISOString();
  await post("scheduled-post", {
    status: "published",
    publishedAt: ahead,
    authors: [id("ada")],
    fields: { series: "advanced" },
  });
  // Revisions: two more writes of the published post.
  await call("PATCH", "/v1/posts/published-post", { title: "A better title" }, 200);
  await call(
    "PATCH",
    "/v1/posts/published-post",
    { description: "Now with more", fields: { reading_time: 9 } },
    200,
  );
  await call(
    "POST",
    "/v1/webhooks",
    { url: `${receiverUrl}/hook`, events: ["post.published"], description: "Site build" },
    201,
  );
}
