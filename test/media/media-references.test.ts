// media-references.ts on the forms the service hands records out in: a JSON value (an event's data, a
// revision's snapshot) and serialized JSON (a webhook's body, built as text from the stored event).
import { describe, expect, it } from "vitest";
import {
  absoluteMediaReferencesIn,
  absoluteMediaReferencesInJsonText,
} from "../../src/media/media-references.ts";

const KEY = "ws_1/0123456789abcdef0123456789abcdef.png";
const OTHER = "ws_1/fedcba9876543210fedcba9876543210.jpg";
const urlFor = (key: string) => `http://localhost:4100/media/${key}`;

const post = {
  id: "p1",
  coverImage: `/media/${KEY}`,
  content: `<p><img src="/media/${KEY}" srcset="/media/${KEY} 1x, /media/${OTHER} 2x" alt=""></p>`,
  authors: [{ slug: "a", image: `/media/${OTHER}` }],
  // Not references: text that merely names the path, and a URL on another host.
  title: "files live under /media/",
  link: `https://elsewhere.example/media/${KEY}`,
  count: 2,
  draft: null,
};

const absolute = {
  ...post,
  coverImage: urlFor(KEY),
  content: `<p><img src="${urlFor(KEY)}" srcset="${urlFor(KEY)} 1x, ${urlFor(OTHER)} 2x" alt=""></p>`,
  authors: [{ slug: "a", image: urlFor(OTHER) }],
};

describe("relative media references made absolute", () => {
  it("in every string of a JSON value, nested objects and arrays included", () => {
    expect(absoluteMediaReferencesIn(post, urlFor)).toEqual(absolute);
  });

  it("in serialized JSON, where an attribute's quotes are escaped, as the value's would be", () => {
    for (const text of [JSON.stringify(post), JSON.stringify(post, null, 1)])
      expect(JSON.parse(absoluteMediaReferencesInJsonText(text, urlFor))).toEqual(absolute);
  });

  it("escapes a URL as a JSON string's content, so the text stays JSON", () => {
    const quoted = (key: string) => `https://cdn.example/a"b\\c/${key}`;
    const text = absoluteMediaReferencesInJsonText(JSON.stringify(post), quoted);
    expect(JSON.parse(text).coverImage).toBe(quoted(KEY));
  });
});
