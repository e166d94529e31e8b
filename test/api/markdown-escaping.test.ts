// `?format=markdown` turns stored HTML into markdown. Text that looks like HTML (`&lt;img …&gt;` in the
// stored body) must stay text: a markdown renderer given the answer shows the same characters and
// creates no element the stored HTML did not have. Ordinary prose stays readable.
import { marked } from "marked";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restFixtures } from "../helpers/rest-fixtures.ts";
import { startTestApp, type TestApp, type TestWorkspace } from "../helpers/test-app.ts";

/** Stored HTML (text only, inside one paragraph) and the text a reader sees. */
const PAYLOADS: [string, string][] = [
  ["&lt;script&gt;alert(1)&lt;/script&gt;", "<script>alert(1)</script>"],
  ["&lt;img src=x onerror=alert(1)&gt;", "<img src=x onerror=alert(1)>"],
  ["&amp;lt;b&amp;gt;bold&amp;lt;/b&amp;gt;", "&lt;b&gt;bold&lt;/b&gt;"],
  ['&lt;a href="javascript:alert(1)"&gt;click&lt;/a&gt;', '<a href="javascript:alert(1)">click</a>'],
  ["&lt;javascript:alert(1)&gt;", "<javascript:alert(1)>"],
  ["&lt;!-- hidden --&gt; &amp;#60;iframe src=x&amp;#62;", "<!-- hidden --> &#60;iframe src=x&#62;"],
  [
    "&lt;IMG SRC=x onerror=alert(1)/&gt;&lt;svg/onload=alert(1)&gt;",
    "<IMG SRC=x onerror=alert(1)/><svg/onload=alert(1)>",
  ],
];

let app: TestApp;
let ws: TestWorkspace;
let categoryId: string;

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace();
  categoryId = (await restFixtures(app, ws.privateKey).category("news")).id;
});
afterAll(async () => app?.close());

let counter = 0;
/** Stores `html` as a post's body and reads it back as markdown. */
async function markdownOf(html: string): Promise<string> {
  const slug = `post-${++counter}`;
  await restFixtures(app, ws.privateKey).post({ slug, categoryId, content: html });
  const res = await app.request("GET", `/v1/posts/${slug}?format=markdown`, { key: ws.publicKey });
  expect(res.status).toBe(200);
  return res.body.post.content as string;
}

/** Tags in rendered HTML other than the paragraph the text sits in. */
function elementsBesidesParagraphs(html: string): string[] {
  return [...html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => m[1]!.toLowerCase()).filter((t) => t !== "p");
}

/** The characters a reader sees in rendered HTML. */
function visibleText(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&(lt|gt|quot|#39|amp);/g, (_m, name: string) =>
      name === "lt" ? "<" : name === "gt" ? ">" : name === "quot" ? '"' : name === "#39" ? "'" : "&",
    )
    .trim();
}

describe("GET /v1/posts/{identifier}?format=markdown", () => {
  it.each(PAYLOADS)("text %s stays text when the markdown is rendered", async (stored, text) => {
    const markdown = await markdownOf(`<p>${stored}</p>`);
    const rendered = marked.parse(markdown, { async: false }) as string;
    expect(elementsBesidesParagraphs(rendered), rendered).toEqual([]);
    expect(visibleText(rendered)).toBe(text);
  });

  it("ordinary prose stays readable: an ampersand or a lone < is not cluttered", async () => {
    const markdown = await markdownOf("<p>Tom &amp; Jerry &amp; friends</p>");
    expect(markdown).toBe("Tom & Jerry & friends");
    const comparison = await markdownOf("<p>if a &lt; b then</p>");
    expect(comparison).toBe("if a \\< b then");
    expect(visibleText(marked.parse(comparison, { async: false }) as string)).toBe("if a < b then");
  });

  it("real markup is still converted, and code keeps its text verbatim", async () => {
    const markdown = await markdownOf(
      "<p><strong>Bold</strong> and <code>&lt;b&gt;</code></p><pre><code>&lt;i&gt; &amp;amp;</code></pre>",
    );
    expect(markdown).toBe("**Bold** and `<b>`\n\n```\n<i> &amp;\n```");
  });
});
