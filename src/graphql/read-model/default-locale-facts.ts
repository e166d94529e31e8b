// A post read without `locale` in a workspace of several locales (issue 56) is served in the default
// locale, and says so: `locale` (the default's code), `availableLocales` and `alternates`, as a read with
// `locale` does, for `hreflang` links. In a workspace of one locale these stay null, and REST leaves them
// out: bodies are as they were before locales.
//
// What it costs: the workspace's locales come with the post or page statement when the selection asks
// for these fields (post-rows.ts `withLocales`, selected-fields.ts `selectsLocaleFacts`), so a one-locale
// workspace pays a small subquery and no round trip, and its resolvers answer without a promise; a
// workspace of several reads its posts' translations in one more statement per request.
import DataLoader from "dataloader";
import { statementName } from "../../db/statement-names.ts";
import type { GraphQLContext } from "../context.ts";
import { type Localized, localizedFacts, localizedOf } from "./post-localized.ts";

// The post's own row (the default locale's translation, locale null here) and its other translations;
// timestamps as epoch milliseconds (a number in both drivers, as post-rows-sql.ts reads them).
const VERSIONS_SQL = `SELECT p.id AS "postId", NULL::text AS locale, p.slug, p.status::text AS status,
    round(date_part('epoch', p."publishedAt") * 1000) AS "publishedAt",
    round(date_part('epoch', p."unpublishAt") * 1000) AS "unpublishAt"
  FROM "Post" p WHERE p.id = ANY($1::text[]) AND p."workspaceId" = $2
UNION ALL
SELECT t."postId", t.locale, t.slug, t.status::text,
    round(date_part('epoch', t."publishedAt") * 1000), round(date_part('epoch', t."unpublishAt") * 1000)
  FROM "PostTranslation" t WHERE t."postId" = ANY($1::text[]) AND t."workspaceId" = $2`;

interface VersionRow {
  postId: string;
  locale: string | null;
  slug: string;
  status: string;
  publishedAt: number;
  unpublishAt: number | null;
}

/**
 * One of the locale facts of a post row: as read with `locale`, else defaultLocaleFacts'. Answered at
 * once (no promise per post and field) when the row was read in a locale or the workspace's locales are
 * known to be one.
 */
export function localeFactOf<Fact>(
  post: { id: string },
  ctx: GraphQLContext,
  pick: (facts: Localized) => Fact,
): Fact | null | Promise<Fact | null> {
  const localized = localizedOf(post);
  if (localized) return pick(localized);
  const known = ctx.loaders.knownWorkspaceLocales(ctx.caller.workspaceId);
  if (known && known.length < 2) return null;
  return defaultLocaleFacts(ctx, post.id).then((facts) => (facts ? pick(facts) : null));
}

const factLoaders = new WeakMap<object, DataLoader<string, Localized | null>>();

/**
 * The locale facts of a post read without `locale`: null in a workspace of one locale (or for a post
 * not found), else the default's code and the translations the caller may be told of (a key that
 * cannot read drafts: the live ones), in the workspace's order of locales.
 */
async function defaultLocaleFacts(ctx: GraphQLContext, postId: string): Promise<Localized | null> {
  const { workspaceId } = ctx.caller;
  const locales = await ctx.loaders.workspaceLocales.load(workspaceId);
  if (locales.length < 2) return null;
  let loader = factLoaders.get(ctx.loaders);
  if (!loader) {
    const chain = { workspaceLocales: locales.map((locale) => locale.code) };
    const defaultCode = locales.find((locale) => locale.isDefault)?.code ?? chain.workspaceLocales[0] ?? "";
    const seesDrafts = ctx.caller.audience === "private";
    loader = new DataLoader(async (ids) => {
      const rows = await ctx.sql.query<VersionRow>(VERSIONS_SQL, [[...ids], workspaceId], {
        name: statementName(VERSIONS_SQL),
      });
      const now = new Date();
      return ids.map((id) => {
        const versions = rows
          .filter((row) => row.postId === id)
          .map((row) => ({
            ...row,
            locale: row.locale ?? defaultCode,
            publishedAt: new Date(row.publishedAt),
            unpublishAt: row.unpublishAt === null ? null : new Date(row.unpublishAt),
          }));
        return versions.length === 0 ? null : localizedFacts(versions, chain, defaultCode, seesDrafts, now);
      });
    });
    factLoaders.set(ctx.loaders, loader);
  }
  return loader.load(postId);
}
