// Shared setup of the post suites (posts.test.ts, posts-update.test.ts): one app and workspace with
// two categories, two tags and three authors, and request helpers that check every response against
// the OpenAPI document. Call `postSuite()` at the top of a test file; its records are ready in tests.
import { afterAll, beforeAll } from "vitest";
import { expectMatchesOpenApi } from "./openapi-check.ts";
import { restFixtures } from "./rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "./test-app.ts";

export type Ref = { id: string; slug: string } & Record<string, unknown>;
type RefName = "news" | "guides" | "js" | "react" | "ann" | "bob" | "cid";

export const POST_ITEM = "/v1/posts/{identifier}";

export function postSuite() {
  const suite = {
    app: undefined as unknown as TestApp,
    ws: undefined as unknown as TestWorkspace,
    fixtures: undefined as unknown as ReturnType<typeof restFixtures>,
    refs: {} as Record<RefName, Ref>,

    /** A request (private key unless given) whose response must match the OpenAPI document. */
    async call(
      method: string,
      template: string,
      path: string,
      options: { key?: string; body?: unknown } = {},
    ) {
      const res = await suite.app.request(method, path, { key: suite.ws.privateKey, ...options });
      expectMatchesOpenApi(res, method, template);
      return res;
    },
    create: (body: unknown) => suite.call("POST", "/v1/posts", "/v1/posts", { body }),
    update: (identifier: string, body: unknown) =>
      suite.call("PATCH", POST_ITEM, `/v1/posts/${identifier}`, { body }),
    /** GET /v1/posts/{identifier}, with the public key unless given. */
    read: (identifier: string, query = "", key?: string) =>
      suite.call("GET", POST_ITEM, `/v1/posts/${identifier}${query ? `?${query}` : ""}`, {
        key: key ?? suite.ws.publicKey,
      }),
    /** A valid create body in the "news" category. */
    validBody: (slug: string) => ({
      title: `Title ${slug}`,
      content: "<p>Hello</p>",
      description: "A post",
      slug,
      categoryId: suite.refs.news.id,
      status: "published",
    }),
  };

  beforeAll(async () => {
    suite.app = await startTestApp();
    suite.ws = await suite.app.workspace();
    const f = restFixtures(suite.app, suite.ws.privateKey);
    suite.fixtures = f;
    suite.refs.news = await f.category("news", { description: "Daily news" });
    suite.refs.guides = await f.category("guides");
    suite.refs.js = await f.tag("js");
    suite.refs.react = await f.tag("react");
    // Ann is the workspace's first author, so the default author of new posts.
    suite.refs.ann = await f.author("ann", {
      bio: "Writes",
      socials: [{ platform: "github", url: "https://github.com/ann" }],
    });
    suite.refs.bob = await f.author("bob");
    suite.refs.cid = await f.author("cid");
  });
  afterAll(async () => suite.app?.close());

  return suite;
}

/** The author sub-object of the post read form. */
export const authorRef = (a: Ref) => ({
  id: a.id,
  name: a.name,
  image: null,
  bio: a.bio ?? null,
  role: null,
  slug: a.slug,
  socials: a.socials,
});

/** The category and tag sub-objects of the post read form. */
export const taxonomyRef = (t: Ref) => ({
  id: t.id,
  name: t.name,
  slug: t.slug,
  description: t.description ?? null,
});
