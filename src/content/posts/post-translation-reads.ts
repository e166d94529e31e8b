// Reading a post in a locale (issue 56): which of its translations a request is served, by the
// request's locale and fallback chain. The default locale's translation is the post's own row, every
// other locale's a PostTranslation. A slug is looked for in the asked locale first, then in each
// fallback in order; the translation served is the first of the chain the caller may see (a public key:
// a live one, post-visibility.ts). What a request cannot see it is never matched by or told of.
import { InvalidInputError } from "../../domain/errors.ts";
import { canonicalLocaleCode, localeCodeProblem } from "../../domain/locale-codes.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { TRANSLATION_COLUMNS } from "../post-translation-columns.ts";
import { isLive, isScheduled, type PostStatusFilter } from "../post-visibility.ts";

/** The locales a read tries, in order, and the workspace's default (whose translation is the post's row). */
export interface ReadChain {
  locales: string[];
  defaultCode: string;
  /** Every locale of the workspace: the default first, then by code (availableLocales' order). */
  workspaceLocales: string[];
}

/** A workspace's locale as a read's chain needs it. */
export interface StoredLocale {
  code: string;
  isDefault: boolean;
  fallback: string[];
}

/**
 * The workspace's locales, as readLocales orders them, as one json array: a statement that reads them
 * beside its own work tells whether the locales its read was planned with were still the workspace's
 * in that statement's snapshot (see rememberedLocales).
 */
export function localesJson(workspaceParam: string): string {
  return `(SELECT coalesce(json_agg(json_build_object('code', l.code, 'isDefault', l."isDefault", 'fallback', l.fallback)
            ORDER BY l."isDefault" DESC, l.code), '[]')
     FROM "Locale" l WHERE l."workspaceId" = ${workspaceParam})`;
}

// The locales each instance last saw per workspace, per database client (one per app): a hint that
// saves a list in a locale its first statement, never trusted alone — the list's statement reads the
// locales again (localesJson) and is run anew when they changed. A few bytes per workspace read.
const remembered = new WeakMap<object, Map<string, StoredLocale[]>>();
const REMEMBERED_WORKSPACES = 10_000;

/** The locales last seen for the workspace by this database client, if any. */
export function rememberedLocales(client: object, workspaceId: string): StoredLocale[] | undefined {
  return remembered.get(client)?.get(workspaceId);
}

/** Remembers the locales a statement read (the oldest workspace forgotten past the bound). */
export function rememberLocales(client: object, workspaceId: string, locales: StoredLocale[]): void {
  const byWorkspace = remembered.get(client) ?? new Map<string, StoredLocale[]>();
  remembered.set(client, byWorkspace);
  byWorkspace.delete(workspaceId);
  byWorkspace.set(workspaceId, locales);
  if (byWorkspace.size > REMEMBERED_WORKSPACES) {
    const oldest = byWorkspace.keys().next().value;
    if (oldest !== undefined) byWorkspace.delete(oldest);
  }
}

/** The workspace's locales, read now (and remembered for the client). */
export async function readLocales(
  prisma: Pick<PrismaClient, "locale">,
  workspaceId: string,
): Promise<StoredLocale[]> {
  const stored = await prisma.locale.findMany({
    where: { workspaceId },
    select: { code: true, isDefault: true, fallback: true },
    orderBy: [{ isDefault: "desc" }, { code: "asc" }],
  });
  rememberLocales(prisma, workspaceId, stored);
  return stored;
}

/**
 * The chain of a read asking for `locale` with `fallback` (a comma list of codes, or `none`; absent: the
 * locale's own chain). A malformed or unknown code is a 400 naming `locale` or `fallback`.
 */
export async function readChain(
  prisma: Pick<PrismaClient, "locale">,
  workspaceId: string,
  locale: string,
  fallback: string | null | undefined,
): Promise<ReadChain> {
  return chainOf(await readLocales(prisma, workspaceId), locale, fallback);
}

/** readChain on locales already read. */
export function chainOf(
  stored: StoredLocale[],
  locale: string,
  fallback: string | null | undefined,
): ReadChain {
  const known = (field: string, value: string): string => {
    const code = canonicalLocaleCode(value);
    if (code === null)
      throw new InvalidInputError("Invalid locale code", [{ field, message: localeCodeProblem(value) }]);
    if (!stored.some((candidate) => candidate.code === code))
      throw new InvalidInputError("Unknown locale", [
        { field, message: `"${code}" is not a locale of this workspace (see /v1/locales)` },
      ]);
    return code;
  };
  const asked = known("locale", locale);
  const chain =
    fallback === undefined || fallback === null
      ? (stored.find((candidate) => candidate.code === asked)?.fallback ?? [])
      : fallback.trim() === "none"
        ? []
        : fallback
            .split(",")
            .map((code) => code.trim())
            .filter(Boolean)
            .map((code) => known("fallback", code));
  return {
    locales: [...new Set([asked, ...chain])],
    defaultCode: stored.find((candidate) => candidate.isDefault)?.code ?? asked,
    workspaceLocales: stored.map((candidate) => candidate.code),
  };
}

/** One translation of a post as a read weighs it: the localized columns. */
export interface TranslationColumns {
  locale: string;
  slug: string;
  title: string;
  description: string;
  content: string;
  status: "published" | "draft";
  publishedAt: Date;
  updatedAt: Date;
  /** Scheduled unpublishing: public until then (post-visibility.ts). */
  unpublishAt: Date | null;
}

/** What a post read in a locale is served, and what it may tell of the post's translations. */
export interface ServedTranslation {
  postId: string;
  /** The translation served; its columns replace the post's own (the same when it is the default's). */
  served: TranslationColumns;
  /** Locales of the translations the caller may be told of, in the workspace's order. */
  availableLocales: string[];
  alternates: { locale: string; slug: string }[];
}

/** Whether a translation passes a read's status filter (the post-visibility rules, on the translation). */
export function passesStatus(
  row: { status: string; publishedAt: Date; unpublishAt: Date | null },
  status: PostStatusFilter,
  now: Date,
): boolean {
  switch (status) {
    case "published":
      return isLive(row, now);
    case "scheduled":
      return isScheduled(row, now);
    case "draft":
      return row.status === "draft";
    case "all":
      return true;
  }
}

/**
 * The translation a read of `identifier` (an id, or a slug of one of the chain's locales, tried in
 * order) is served, among those passing `status`; null when no post matches or none of its chain's
 * translations may be seen (a 404).
 */
export async function servedTranslation(
  prisma: Pick<PrismaClient, "post" | "postTranslation">,
  workspaceId: string,
  identifier: string,
  chain: ReadChain,
  status: PostStatusFilter,
  now: Date,
  /** A key that reads drafts is told of every translation; any other, of the live ones only. */
  seesDrafts: boolean,
): Promise<ServedTranslation | null> {
  const { locales, defaultCode } = chain;
  const others = locales.filter((code) => code !== defaultCode);
  // The posts the identifier can name: by id, by the default's slug, by a translation's slug.
  const candidates = await prisma.post.findMany({
    where: {
      workspaceId,
      OR: [
        { id: identifier },
        ...(locales.includes(defaultCode) ? [{ slug: identifier }] : []),
        { translations: { some: { slug: identifier, locale: { in: others } } } },
      ],
    },
    select: {
      id: true,
      ...TRANSLATION_COLUMNS,
      translations: { select: { locale: true, ...TRANSLATION_COLUMNS } },
    },
  });
  const versionsOf = (post: (typeof candidates)[number]): TranslationColumns[] => [
    { locale: defaultCode, ...pick(post) },
    ...post.translations,
  ];
  const visible = (post: (typeof candidates)[number]) =>
    versionsOf(post).filter((version) => passesStatus(version, status, now));
  const byId = candidates.find((post) => post.id === identifier);
  const matched =
    byId ??
    locales
      .map((code) =>
        candidates.find((post) =>
          visible(post).some((version) => version.locale === code && version.slug === identifier),
        ),
      )
      .find((post) => post !== undefined);
  if (!matched) return null;
  const seen = visible(matched);
  const served = locales.map((code) => seen.find((version) => version.locale === code)).find(Boolean);
  if (!served) return null;
  const told = versionsOf(matched).filter((version) => seesDrafts || isLive(version, now));
  const ordered = chain.workspaceLocales
    .map((code) => told.find((version) => version.locale === code))
    .filter((version): version is TranslationColumns => version !== undefined);
  return {
    postId: matched.id,
    served,
    availableLocales: ordered.map((version) => version.locale),
    alternates: ordered.map((version) => ({ locale: version.locale, slug: version.slug })),
  };
}

function pick(post: Omit<TranslationColumns, "locale">): Omit<TranslationColumns, "locale"> {
  const { slug, title, description, content, status, publishedAt, updatedAt, unpublishAt } = post;
  return { slug, title, description, content, status, publishedAt, updatedAt, unpublishAt };
}
