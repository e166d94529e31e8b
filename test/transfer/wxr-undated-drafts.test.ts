// Issue 54: a WordPress draft whose date was never set ("floating": post_date_gmt 0000-00-00 00:00:00)
// was dated by its post_date read as UTC, and one with no date at all on 1970-01-01. WordPress keeps
// a floating draft's post_date in the site's local time; the file names no zone, but its dated posts
// show the site's offset (post_date − post_date_gmt). A draft without any date is dated when the file
// was exported (the channel's pubDate). A WXR 1.2 file shaped as WordPress writes one, for a site at
// UTC+2, imported and read back through the API on this test's store.
import { describe, expect, it } from "vitest";
import { scratchImport } from "./helpers/scratch-import.ts";

const item = (id: number, title: string, status: string, date: string | null, gmt: string) => `
  <item>
    <title><![CDATA[${title}]]></title>
    <dc:creator><![CDATA[admin]]></dc:creator>
    <content:encoded><![CDATA[<p>${title}</p>]]></content:encoded>
    <excerpt:encoded><![CDATA[]]></excerpt:encoded>
    <wp:post_id>${id}</wp:post_id>
    ${date === null ? "" : `<wp:post_date><![CDATA[${date}]]></wp:post_date>`}
    <wp:post_date_gmt><![CDATA[${gmt}]]></wp:post_date_gmt>
    <wp:post_name><![CDATA[]]></wp:post_name>
    <wp:status><![CDATA[${status}]]></wp:status>
    <wp:post_type><![CDATA[post]]></wp:post_type>
  </item>`;

const WXR = `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/1.2/excerpt/"
  xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/"
  xmlns:wp="http://wordpress.org/export/1.2/">
<channel>
  <title>Paris notes</title>
  <link>https://paris.example</link>
  <pubDate>Sat, 01 Jun 2024 18:00:00 +0000</pubDate>
  <wp:wxr_version>1.2</wp:wxr_version>
  <wp:base_site_url>https://paris.example</wp:base_site_url>
  ${item(1, "Published in winter", "publish", "2024-01-10 12:00:00", "2024-01-10 11:00:00")}
  ${item(2, "Published in summer", "publish", "2024-05-30 12:00:00", "2024-05-30 10:00:00")}
  ${item(3, "Floating draft", "draft", "2024-05-31 09:30:00", "0000-00-00 00:00:00")}
  ${item(4, "Draft without a date", "draft", "0000-00-00 00:00:00", "0000-00-00 00:00:00")}
  ${item(5, "Draft with no post_date", "draft", null, "0000-00-00 00:00:00")}
</channel>
</rss>`;

describe("import --from wxr of drafts without a GMT date", () => {
  const scratch = scratchImport("wxr-dates");

  it("reads post_date at the site's offset, and dates a draft without one at the export", async () => {
    const { app } = scratch;
    const file = scratch.write("paris.xml", WXR);
    const ws = await app.workspace("paris");
    const run = () => scratch.run(ws, { from: "wxr", location: file });
    const summary = await run();
    expect(summary.failures).toEqual([]);
    const dateOf = async (slug: string) =>
      (await app.request("GET", `/v1/posts/${slug}?status=all`, { key: ws.privateKey })).body.post
        .publishedAt;
    expect({
      winter: await dateOf("published-in-winter"),
      summer: await dateOf("published-in-summer"),
      floating: await dateOf("floating-draft"),
      undated: await dateOf("draft-without-a-date"),
      noPostDate: await dateOf("draft-with-no-post-date"),
    }).toEqual({
      winter: "2024-01-10T11:00:00.000Z",
      summer: "2024-05-30T10:00:00.000Z",
      // UTC+2, the offset of the dated post nearest in time (summer), not winter's UTC+1.
      floating: "2024-05-31T07:30:00.000Z",
      undated: "2024-06-01T18:00:00.000Z",
      noPostDate: "2024-06-01T18:00:00.000Z",
    });
    // The same file dates them the same way again: a second run changes nothing.
    expect((await run()).totals).toMatchObject({ created: 0, updated: 0 });
  });
});
