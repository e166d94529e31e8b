import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

describe("smoke", () => {
  let app: TestApp;
  let ws: TestWorkspace;
  beforeAll(async () => {
    app = await startTestApp();
    ws = await app.workspace();
  });
  afterAll(async () => app.close());

  it("creates and reads a post", async () => {
    const category = await app.request("POST", "/v1/categories", {
      key: ws.privateKey,
      body: { name: "News", slug: "news" },
    });
    expect(category.status).toBe(201);
    const post = await app.request("POST", "/v1/posts", {
      key: ws.privateKey,
      body: {
        title: "Hello",
        content: "<p>Hi<script>x</script></p>",
        description: "d",
        slug: "hello",
        categoryId: category.body.category.id,
        status: "published",
      },
    });
    expect(post.status).toBe(201);
    const list = await app.request("GET", "/v1/posts", { key: ws.publicKey });
    expect(list.status).toBe(200);
    expect(list.body.posts[0].content).toBe("<p>Hi</p>");
    const gql = await app.graphql(ws.publicKey, "{ posts { items { title content(format: MARKDOWN) } } }");
    expect(gql.errors).toBeUndefined();
    expect(gql.data.posts.items[0]).toEqual({ title: "Hello", content: "Hi" });
  });
});
