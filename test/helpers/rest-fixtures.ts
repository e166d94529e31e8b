// Content made through the REST API itself, for suites that need a few records to read back.
import { expect } from "vitest";
import type { TestApp } from "./test-app.ts";

/** An ISO 8601 UTC timestamp as the API writes them. */
export const isoDate = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

export interface PostInput {
  title?: string;
  slug: string;
  categoryId: string;
  status?: "published" | "draft";
  content?: string;
  contentFormat?: "html" | "markdown";
  description?: string;
  tags?: string[];
  authors?: string[];
  featured?: boolean;
  coverImage?: string | null;
  publishedAt?: string;
  unpublishAt?: string;
  fields?: Record<string, unknown>;
}

export function restFixtures(app: TestApp, privateKey: string) {
  async function create(path: string, body: Record<string, unknown>, wrapper: string) {
    const res = await app.request("POST", path, { key: privateKey, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body[wrapper] as Record<string, unknown> & { id: string; slug: string };
  }
  return {
    category: (slug: string, extra: Record<string, unknown> = {}) =>
      create("/v1/categories", { name: title(slug), slug, ...extra }, "category"),
    tag: (slug: string, extra: Record<string, unknown> = {}) =>
      create("/v1/tags", { name: title(slug), slug, ...extra }, "tag"),
    author: (slug: string, extra: Record<string, unknown> = {}) =>
      create("/v1/authors", { name: title(slug), slug, ...extra }, "author"),
    post: (input: PostInput) =>
      create(
        "/v1/posts",
        {
          title: title(input.slug),
          content: `<p>Body of ${input.slug}</p>`,
          description: `About ${input.slug}`,
          status: "published",
          ...input,
        },
        "post",
      ),
  };
}

/** `my-slug` → `My slug`. */
function title(slug: string): string {
  const words = slug.replace(/-/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Days from a fixed point in the past, as an ISO timestamp: distinct, ordered publishedAt values. */
export function day(n: number): string {
  return new Date(Date.UTC(2024, 0, 1 + n, 12)).toISOString();
}
