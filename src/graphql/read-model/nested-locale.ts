// The category, tags and authors of a post read in a locale (issue 56): their names and descriptions
// (an author's bio) follow the post's — the first locale of the post's chain that has them, the
// record's own (the default locale's) last — and a `locale`/`fallback` on the nested field overrides
// the post's. The read model reads them so in the page's own rows statement (post-rows-sql.ts); rows
// read otherwise (a plan the read model does not cover), and overrides, are served here by one batched
// statement (loaders.ts servedNames). A post read without a locale, asking for no override, is answered
// from its row as it always was.

import {
  chainOf,
  type ReadChain,
  readLocales,
  rememberedLocales,
} from "../../content/posts/post-translation-reads.ts";
import { TRANSLATION_TABLES, type TranslatedKind } from "../../content/taxonomy/taxonomy-translations.ts";
import { InvalidInputError } from "../../domain/errors.ts";
import type { GraphQLContext } from "../context.ts";
import { withServedLocale } from "./taxonomy-localized.ts";

const NESTED = Symbol("nestedChain");

interface NestedChain {
  chain: ReadChain;
  /** Whether the row's nested records were read in the chain already (the read model's statement). */
  applied: boolean;
}

/** The locales a nested record's names are looked up in, in order: the chain up to the default's. */
export function nestedLookup(chain: ReadChain): string[] {
  const end = chain.locales.indexOf(chain.defaultCode);
  return end === -1 ? chain.locales : chain.locales.slice(0, end);
}

/** Marks a post row read in `chain`, its nested records served in it already (`applied`) or not. */
export function withNestedChain<Row extends object>(row: Row, chain: ReadChain, applied: boolean): Row {
  return Object.assign(row, { [NESTED]: { chain, applied } satisfies NestedChain });
}

function nestedChainOf(row: object): NestedChain | undefined {
  return (row as { [NESTED]?: NestedChain })[NESTED];
}

/** A nested field's own `locale` and `fallback` arguments. */
export interface NestedLocaleArgs {
  locale?: string | null;
  fallback?: string | null;
}

type NamedRecord = { id: string; name: string } & Record<string, unknown>;

/** Whether a nested field of `post` may serve other names than those read: a locale on it or on the post. */
export function followsLocale(post: object, args: NestedLocaleArgs): boolean {
  return args.locale != null || args.fallback != null || nestedChainOf(post) !== undefined;
}

/**
 * The post's `records` of `kind` as the field serves them: as read when no locale applies (none on the
 * post, none on the field) or when the read model read them in the chain that applies; else each with
 * the names of that chain (copies: the row's own stay as read). Tags are then ordered by the name served.
 */
export function servedRelations<R extends NamedRecord>(
  ctx: GraphQLContext,
  post: object,
  args: NestedLocaleArgs,
  kind: TranslatedKind,
  records: R[],
): R[] | Promise<R[]> {
  const inherited = nestedChainOf(post);
  const overrides = args.locale != null || args.fallback != null;
  if (!overrides) {
    if (!inherited || inherited.applied) return records;
    return served(ctx, kind, records, inherited.chain);
  }
  return overrideChain(ctx, inherited?.chain, args).then((chain) =>
    inherited?.applied && sameChain(inherited.chain, chain) ? records : served(ctx, kind, records, chain),
  );
}

async function overrideChain(
  ctx: GraphQLContext,
  inherited: ReadChain | undefined,
  args: NestedLocaleArgs,
): Promise<ReadChain> {
  const locale = args.locale ?? inherited?.locales[0];
  if (locale == null)
    throw new InvalidInputError("A fallback needs a locale", [
      { field: "fallback", message: "Give `locale` too (the post was read without one)" },
    ]);
  // The field's own fallback, else the locale's own chain (as a root field's `locale` alone).
  const fallback = args.fallback;
  const { workspaceId } = ctx.caller;
  const remembered = rememberedLocales(ctx.prisma, workspaceId);
  try {
    return chainOf(remembered ?? (await readLocales(ctx.prisma, workspaceId)), locale, fallback);
  } catch (error) {
    // An unknown code may be a locale added since: refused only on the locales read now.
    if (!remembered) throw error;
    return chainOf(await readLocales(ctx.prisma, workspaceId), locale, fallback);
  }
}

function sameChain(a: ReadChain, b: ReadChain): boolean {
  return a.defaultCode === b.defaultCode && a.locales.join(",") === b.locales.join(",");
}

async function served<R extends NamedRecord>(
  ctx: GraphQLContext,
  kind: TranslatedKind,
  records: R[],
  chain: ReadChain,
): Promise<R[]> {
  const loader = ctx.loaders.servedNames(nestedLookup(chain));
  const names = await loader.loadMany(records.map((record) => `${kind} ${record.id}`));
  const { text } = TRANSLATION_TABLES[kind];
  const out = records.map((record, index) => {
    const name = names[index];
    if (name instanceof Error) throw name;
    if (!name) return { record, rank: 0 };
    const copy = { ...record, name: name.name, [text]: name.text };
    return { record: withServedLocale(copy, name.locale ?? chain.defaultCode), rank: name.rank };
  });
  if (kind === "tag") out.sort((a, b) => a.rank - b.rank);
  return out.map(({ record }) => record);
}
