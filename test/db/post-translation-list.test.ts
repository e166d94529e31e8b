// A post list in a locale (issue 56), as a property: for random posts and translations (any status and
// date, shared category and featured flag), a random chain (the default anywhere in it, or absent), a
// random status filter, order and page, `localizedPostPage` answers what serving every post one by one
// answers — the first version of the chain that passes the status filter, ordered by its date, ties by
// id — both by date (the indexed statement) and with a search that every version matches (the
// statement that ranks every served version). Another workspace's posts, some with the same dates,
// never show. On this run's store (PGlite, or a PostgreSQL schema of its own).
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostStatusFilter } from "../../src/content/post-visibility.ts";
import { localizedPostPage } from "../../src/content/posts/post-translation-list.ts";
import type { Database } from "../../src/db/database-types.ts";
import { openTestDatabase } from "../helpers/test-database.ts";

const LOCALES = ["en", "fr", "de"] as const;
type Code = (typeof LOCALES)[number];
const DEFAULT: Code = "en";
const NOW = new Date(Date.UTC(2026, 5, 15, 12));
const day = (offset: number) => new Date(NOW.getTime() + offset * 86_400_000);

interface Version {
  status: "published" | "draft";
  /** Days from now: ahead is scheduled when published. */
  offset: number;
}
interface PostCase {
  category: "c1" | "c2";
  featured: boolean;
  own: Version;
  translations: Partial<Record<"fr" | "de", Version>>;
}

const version: fc.Arbitrary<Version> = fc.record({
  status: fc.constantFrom("published" as const, "draft" as const),
  // Few distinct days, so that dates tie and the order falls back on ids.
  offset: fc.integer({ min: -4, max: 2 }),
});
const post: fc.Arbitrary<PostCase> = fc.record({
  category: fc.constantFrom("c1" as const, "c2" as const),
  featured: fc.boolean(),
  own: version,
  translations: fc.record({ fr: version, de: version }, { requiredKeys: [] }),
});
const chain = fc.shuffledSubarray([...LOCALES], { minLength: 1 }).map((locales) => locales as Code[]);
const listCase = fc.record({
  posts: fc.array(post, { maxLength: 12 }),
  chain,
  status: fc.constantFrom<PostStatusFilter>("published", "scheduled", "draft", "all"),
  order: fc.constantFrom("asc" as const, "desc" as const),
  categories: fc.option(fc.constant(["second"]), { nil: null }),
  featured: fc.option(fc.boolean(), { nil: null }),
  skip: fc.nat({ max: 6 }),
  take: fc.integer({ min: 1, max: 5 }),
});

function passes(v: Version, status: PostStatusFilter): boolean {
  const live = v.status === "published" && v.offset <= 0;
  if (status === "all") return true;
  if (status === "draft") return v.status === "draft";
  if (status === "published") return live;
  return v.status === "published" && v.offset > 0;
}

describe("a post list in a locale, against serving each post one by one", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase();
    await db.sql.exec(`
      INSERT INTO "Workspace" (id, name, slug, "updatedAt") VALUES ('w1', 'One', 'one', now()), ('w2', 'Two', 'two', now());
      INSERT INTO "Locale" (id, "workspaceId", code, name, "isDefault", "updatedAt")
      SELECT w || '-' || code, w, code, code, code = 'en', now()
        FROM unnest(ARRAY['w1', 'w2']) AS w, unnest(ARRAY['en', 'fr', 'de']) AS code;
      INSERT INTO "Category" (id, "workspaceId", name, slug, "updatedAt")
      VALUES ('c1', 'w1', 'First', 'first', now()), ('c2', 'w1', 'Second', 'second', now()),
             ('c3', 'w2', 'Second', 'second', now());`);
  });
  afterAll(async () => {
    await db?.close();
  });

  async function store(posts: PostCase[]): Promise<void> {
    await db.sql.exec(`DELETE FROM "Post"`);
    const values: string[] = [];
    const translations: string[] = [];
    const at = (offset: number) => `'${day(offset).toISOString()}'::timestamptz AT TIME ZONE 'UTC'`;
    posts.forEach((p, n) => {
      const id = `p${String(n).padStart(2, "0")}`;
      values.push(
        `('${id}', 'w1', '${id}', 'Garden ${n}', '${p.own.status}', ${p.featured}, 'garden', '<p>garden</p>', ${at(p.own.offset)}, now(), '${p.category}')`,
        // The same post in another workspace: never listed.
        `('x${id}', 'w2', '${id}', 'Garden ${n}', 'published', ${p.featured}, 'garden', '<p>garden</p>', ${at(p.own.offset)}, now(), 'c3')`,
      );
      for (const [locale, v] of Object.entries(p.translations))
        translations.push(
          `('${id}', 'w1', '${locale}', '${id}-${locale}', 'Garden ${n}', 'garden', '<p>garden</p>', '${v.status}', ${at(v.offset)}, now())`,
        );
    });
    if (values.length)
      await db.sql.exec(`INSERT INTO "Post" (id, "workspaceId", slug, title, status, featured, description, content,
        "publishedAt", "updatedAt", "categoryId") VALUES ${values.join(", ")}`);
    if (translations.length)
      await db.sql.exec(`INSERT INTO "PostTranslation" ("postId", "workspaceId", locale, slug, title, description,
        content, status, "publishedAt", "updatedAt") VALUES ${translations.join(", ")}`);
  }

  it("counts, orders and pages the version each post is served, by date and in a search", async () => {
    await fc.assert(
      fc.asyncProperty(listCase, async (c) => {
        await store(c.posts);
        // The answer by hand: each post's first passing version of the chain.
        const served = c.posts.flatMap((p, n) => {
          if (c.categories && p.category !== "c2") return [];
          if (c.featured !== null && p.featured !== c.featured) return [];
          for (const locale of c.chain) {
            const v = locale === DEFAULT ? p.own : p.translations[locale];
            if (v && passes(v, c.status))
              return [{ id: `p${String(n).padStart(2, "0")}`, locale, offset: v.offset }];
          }
          return [];
        });
        const sign = c.order === "asc" ? 1 : -1;
        served.sort((a, b) => sign * (a.offset - b.offset) || (a.id < b.id ? -1 : 1));
        const expected = {
          total: served.length,
          page: served.slice(c.skip, c.skip + c.take).map(({ id, locale }) => ({ id, locale })),
        };
        const query = {
          filter: { status: c.status, now: NOW, categories: c.categories, featured: c.featured },
          chain: { locales: c.chain, defaultCode: DEFAULT, workspaceLocales: [...LOCALES] },
          order: c.order,
          skip: c.skip,
          take: c.take,
        };
        // With the page, every translation of its posts (what availableLocales and alternates tell).
        const translationsOf = (page: { id: string; locale: string }[]) =>
          page.flatMap(({ id }) =>
            Object.entries(c.posts[Number(id.slice(1))]?.translations ?? {}).map(([locale, v]) => ({
              postId: id,
              locale,
              status: v.status,
              publishedAt: day(v.offset),
              // The body only of the translation served.
              content: page.some((entry) => entry.id === id && entry.locale === locale)
                ? "<p>garden</p>"
                : null,
            })),
          );
        const answered = async (search: string | null) => {
          const answer = await localizedPostPage(db.sql, "w1", { ...query, search });
          return {
            total: answer.total,
            page: answer.page,
            translations: answer.translations
              .map(({ postId, locale, status, publishedAt, content }) => ({
                postId,
                locale,
                status,
                publishedAt,
                content,
              }))
              .sort((a, b) => (a.postId + a.locale < b.postId + b.locale ? -1 : 1)),
          };
        };
        const sorted = (list: ReturnType<typeof translationsOf>) =>
          list.sort((a, b) => (a.postId + a.locale < b.postId + b.locale ? -1 : 1));
        const withTranslations = { ...expected, translations: sorted(translationsOf(expected.page)) };
        expect(await answered(null)).toEqual(withTranslations);
        // Every version holds "garden": the search's statement serves and orders the same.
        expect(await answered("garden")).toEqual(withTranslations);
      }),
      { numRuns: 150 },
    );
  });
});
