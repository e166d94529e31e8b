// The pages a person opens, in a real (headless) browser, with every request that would leave the
// service blocked: GraphiQL runs a query with a key and shows the answer; /docs lists the REST
// operations; the home page links both. None of them asks anything of the internet, and the
// Content-Security-Policy they carry lets them work.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, openGuardedPage } from "../helpers/browser.ts";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

let app: TestApp;
let ws: TestWorkspace;
let browser: Browser;
beforeAll(async () => {
  [app, browser] = await Promise.all([startTestApp(), launchBrowser()]);
  ws = await app.workspace("Browser");
  const f = restFixtures(app, ws.privateKey);
  const category = await f.category("browsing");
  await f.post({ title: "Seen through GraphiQL", slug: "seen-through-graphiql", categoryId: category.id });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe("in a browser, with no network beyond the service", () => {
  it("GraphiQL at /graphql runs `{ posts { items { title } } }` with a key and shows the result", async () => {
    const { page, outside, errors } = await openGuardedPage(browser, app.url);
    const response = await page.goto(`${app.url}/graphql`);
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'");
    const queryEditor = page.locator(".graphiql-query-editor .monaco-editor").first();
    await queryEditor.waitFor({ timeout: 30_000 });
    await queryEditor.click();
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText("{ posts { items { title } } }");

    await page
      .getByRole("button", { name: /headers/i })
      .first()
      .click();
    const headersEditor = page.locator(".graphiql-editor-tool .monaco-editor").last();
    // Pre-filled with how a request carries a key (Monaco renders spaces as no-break spaces).
    await expect
      .poll(async () => (await headersEditor.innerText()).replace(/\u00a0/g, " "), { timeout: 10_000 })
      .toContain('"Authorization": "Bearer <your public');
    await headersEditor.click();
    await page.keyboard.press("Control+A");
    await page.keyboard.press("Delete");
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${ws.publicKey}` }));

    await page.locator(".graphiql-execute-button").first().click();
    await expect
      // Monaco renders spaces as no-break spaces.
      .poll(
        async () => (await page.locator(".graphiql-response").first().innerText()).replace(/\u00a0/g, " "),
        {
          timeout: 20_000,
        },
      )
      .toContain("Seen through GraphiQL");
    expect(outside).toEqual([]);
    expect(errors.filter((e) => /Content Security Policy|Refused to/i.test(e))).toEqual([]);
  }, 90_000);

  it("/docs shows the REST operations from the OpenAPI document", async () => {
    const { page, outside, errors } = await openGuardedPage(browser, app.url);
    const response = await page.goto(`${app.url}/docs`);
    expect(response?.headers()["content-security-policy"]).toContain("default-src 'none'");
    await expect
      .poll(async () => page.locator("body").innerText(), { timeout: 30_000 })
      .toMatch(/\/v1\/posts/);
    expect(await page.locator("body").innerText()).toMatch(/webhooks/i);
    expect(outside).toEqual([]);
    expect(errors.filter((e) => /Content Security Policy|Refused to/i.test(e))).toEqual([]);
  }, 90_000);

  it("the home page links GraphiQL, /docs and the OpenAPI document", async () => {
    const { page, outside } = await openGuardedPage(browser, app.url);
    await page.goto(`${app.url}/`);
    const links = await page
      .locator("a")
      .evaluateAll((anchors) => anchors.map((a) => a.getAttribute("href")));
    expect(links).toEqual(expect.arrayContaining(["/graphql", "/docs", "/v1/openapi.json"]));
    expect(outside).toEqual([]);
  }, 60_000);

  it("a page's EventSource subscribes with a public key in the URL and receives a change", async () => {
    const { page, outside, errors } = await openGuardedPage(browser, app.url);
    await page.goto(`${app.url}/`);
    const url = `/graphql?query=${encodeURIComponent("subscription { contentChanged { type slug } }")}&key=${ws.publicKey}`;
    // What a site's script does: EventSource sends no headers, so the public key rides in the URL.
    await page.evaluate((source) => {
      const messages: string[] = [];
      (window as unknown as { messages: string[] }).messages = messages;
      const events = new EventSource(source);
      events.addEventListener("next", (event) => messages.push((event as MessageEvent).data));
      return new Promise<void>((resolve) => events.addEventListener("open", () => resolve()));
    }, url);
    await restFixtures(app, ws.privateKey).tag("seen-by-a-browser");
    await expect
      .poll(async () => page.evaluate(() => (window as unknown as { messages: string[] }).messages), {
        timeout: 10_000,
      })
      .toEqual([
        JSON.stringify({ data: { contentChanged: { type: "tag.created", slug: "seen-by-a-browser" } } }),
      ]);
    expect(outside).toEqual([]);
    expect(errors.filter((e) => /Content Security Policy|Refused to/i.test(e))).toEqual([]);
  }, 60_000);
});
