// A workspace's locales: add one, rename it, set its fallback chain, make it the default, remove it.
// Every write goes through the one writer and records locale.created, .updated or .deleted, so the
// answers that show locales are dropped on every instance like any other content's.
//
// A workspace's locale writes take turns (an advisory lock per workspace, held to COMMIT): whether a
// chain makes a cycle, and which locale is the default, are facts about all of the workspace's locales
// at once, and two writes that each look fine alone (a→b and b→a) must not both commit. Two creates of
// one code are still decided by the unique index ("Locale_workspaceId_code_key"), never by a lookup:
// the second is a 409 and never a second row. The partial unique index on the default
// ("Locale_workspaceId_default_key") makes two defaults impossible whatever a write does.
import { isUniqueViolation } from "../../db/recognise-prisma-errors.ts";
import { ConflictError, InvalidInputError, NotFoundError } from "../../domain/errors.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { ProblemList } from "../validation.ts";
import { takeWorkspaceTurn, type UnitOfWork, type WriteClient, write } from "../writer.ts";
import {
  checkedLocaleCode,
  defaultLocaleName,
  fallbackCycle,
  fallbackProblems,
  requireLocaleCode,
} from "./locale-rules.ts";

/** The locale a workspace starts with when its creator names none. */
export const FIRST_LOCALE_CODE = "en";

const MAX_NAME_LENGTH = 100;

export interface LocaleWrite {
  name?: string | null;
  /** The codes to fall back to, in order; [] for none. */
  fallback?: readonly string[] | null;
  /** true: this locale becomes the default, and the default until now no longer is. */
  isDefault?: boolean | null;
}

interface StoredLocale {
  id: string;
  code: string;
  isDefault: boolean;
  fallback: string[];
}

/** Adds a locale to a workspace; returns its id. */
export async function createLocale(
  prisma: PrismaClient,
  workspaceId: string,
  input: LocaleWrite & { code: string },
): Promise<string> {
  const problems = new ProblemList();
  const code = checkedLocaleCode("code", input.code);
  if (typeof code !== "string") problems.add(code.field, code.message);
  const fallback = canonicalFallback(input.fallback, problems);
  checkName(input.name, problems);
  problems.throwIfAny("Invalid locale");
  const localeCode = code as string;
  try {
    return await write(prisma, async (uow) => {
      const stored = await lockedLocales(uow.tx, workspaceId);
      if (fallback) checkChain(localeCode, fallback, stored);
      if (input.isDefault) await unsetDefault(uow, workspaceId, stored);
      const created = await uow.tx.locale.create({
        data: {
          workspaceId,
          code: localeCode,
          name: input.name ?? defaultLocaleName(localeCode),
          isDefault: input.isDefault === true,
          fallback: fallback ?? [],
        },
        select: { id: true },
      });
      uow.changed({ resource: "locale", action: "created", id: created.id, workspaceId });
      return created.id;
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ConflictError(`Locale "${localeCode}" already exists in this workspace`, "code");
    throw error;
  }
}

/** Renames a locale, replaces its fallback chain or makes it the default; returns its id. */
export async function updateLocale(
  prisma: PrismaClient,
  workspaceId: string,
  code: string,
  input: LocaleWrite,
): Promise<string> {
  const localeCode = requireLocaleCode("code", code);
  const problems = new ProblemList();
  const fallback = canonicalFallback(input.fallback, problems);
  checkName(input.name, problems);
  if (input.name === null) problems.add("name", "Cannot be null");
  problems.throwIfAny("Invalid locale");
  return write(prisma, async (uow) => {
    const stored = await lockedLocales(uow.tx, workspaceId);
    const locale = stored.find((candidate) => candidate.code === localeCode);
    if (!locale) throw new NotFoundError("Locale", localeCode);
    if (fallback) checkChain(localeCode, fallback, stored);
    if (input.isDefault === false && locale.isDefault)
      throw new InvalidInputError("A workspace always has a default locale", [
        { field: "isDefault", message: "Make another locale the default instead" },
      ]);
    const becomesDefault = input.isDefault === true && !locale.isDefault;
    // The default's translation is the post's own row (docs/decisions.md, "Post translations"): a
    // locale that holds translations would need them moved there first, which nothing does yet.
    if (becomesDefault && (await holdsTranslations(uow.tx, workspaceId, localeCode)))
      throw new ConflictError(
        `Locale "${localeCode}" holds translations (of posts, categories, tags or authors); only a locale without any can become the default`,
        "isDefault",
      );
    // The old default first: the partial unique index is checked per statement.
    if (becomesDefault) await unsetDefault(uow, workspaceId, stored);
    await uow.tx.locale.update({
      where: { id: locale.id },
      data: {
        name: input.name ?? undefined,
        fallback: fallback ?? undefined,
        ...(becomesDefault ? { isDefault: true } : {}),
      },
    });
    uow.changed({ resource: "locale", action: "updated", id: locale.id, workspaceId });
    return locale.id;
  });
}

/**
 * Removes a locale; returns its id. Never the default (a workspace always has one), and never one
 * another locale still falls back to: the 409 names them, so that removing a locale never silently
 * changes what another locale's readers are served. Nor one that holds translations (of posts,
 * categories, tags or authors) unless `force`: then they go with it, each recorded as its removal with
 * `DELETE /v1/posts/{id}?locale=` (`/v1/categories/{id}?locale=`, …) is, so feeds, webhooks and caches
 * learn of every one.
 */
export async function deleteLocale(
  prisma: PrismaClient,
  workspaceId: string,
  code: string,
  options: { force?: boolean } = {},
): Promise<string> {
  const localeCode = requireLocaleCode("code", code);
  return write(prisma, async (uow) => {
    const stored = await lockedLocales(uow.tx, workspaceId);
    const locale = stored.find((candidate) => candidate.code === localeCode);
    if (!locale) throw new NotFoundError("Locale", localeCode);
    if (locale.isDefault)
      throw new ConflictError(
        `Locale "${localeCode}" is the workspace's default; make another locale the default first`,
        "isDefault",
      );
    const dependents = stored
      .filter((other) => other.fallback.includes(localeCode))
      .map((other) => other.code)
      .sort();
    if (dependents.length > 0)
      throw new ConflictError(
        `Locale "${localeCode}" is in the fallback chain of ${dependents.join(", ")}; remove it from there first`,
        "fallback",
      );
    const translations = await heldTranslations(uow.tx, workspaceId, localeCode);
    const names = await heldNames(uow.tx, workspaceId, localeCode);
    if ((translations.length > 0 || names.length > 0) && !options.force)
      throw new ConflictError(
        `Locale "${localeCode}" holds ${heldCounts(translations.length, names)}; remove them first, or ask with force=true to remove them with the locale`,
        "force",
      );
    // A category's, tag's or author's name in the locale goes too: each recorded as its removal with
    // `DELETE /v1/categories/{id}?locale=` is (taxonomy.ts), so readers of that locale learn of it.
    for (const name of names)
      uow.changed({ resource: name.kind, action: "updated", id: name.id, workspaceId, locale: localeCode });
    for (const translation of translations)
      uow.changed({
        resource: "post",
        action: "updated",
        id: translation.postId,
        workspaceId,
        locale: localeCode,
        slug: translation.slug,
        statusChange: { from: translation.releasedAt ? "published" : "draft", to: "draft" },
      });
    // The translations go with the row (the translation tables' foreign keys cascade).
    await uow.tx.locale.delete({ where: { id: locale.id } });
    uow.changed({ resource: "locale", action: "deleted", id: locale.id, workspaceId, slug: localeCode });
    return locale.id;
  });
}

/**
 * A new workspace's one locale, default, in the workspace's own unit of work (no event: the workspace's
 * creation records none either). `code` is canonicalised; a malformed one is an InvalidInputError
 * naming `locale`.
 */
export async function createFirstLocale(
  tx: WriteClient,
  workspaceId: string,
  code: string = FIRST_LOCALE_CODE,
): Promise<{ code: string; name: string }> {
  const localeCode = requireLocaleCode("locale", code);
  return tx.locale.create({
    data: {
      workspaceId,
      code: localeCode,
      name: defaultLocaleName(localeCode),
      isDefault: true,
      fallback: [],
    },
    select: { code: true, name: true },
  });
}

/** Checks a workspace's first locale before anything is written (the CLI and admin API's `locale`). */
export function checkFirstLocaleCode(code: string): string {
  return requireLocaleCode("locale", code);
}

/** The workspace's locales (the default first, then by code) and its slug setting, as the CLI lists them. */
export async function localesOf(
  prisma: PrismaClient,
  workspaceId: string,
): Promise<{ locales: LocaleSummary[]; slugsUniqueAcrossLocales: boolean }> {
  const [locales, workspace] = await Promise.all([
    prisma.locale.findMany({
      where: { workspaceId },
      orderBy: [{ isDefault: "desc" }, { code: "asc" }],
      select: { code: true, name: true, isDefault: true, fallback: true },
    }),
    prisma.workspace.findUnique({ where: { id: workspaceId }, select: { slugsUniqueAcrossLocales: true } }),
  ]);
  return { locales, slugsUniqueAcrossLocales: workspace?.slugsUniqueAcrossLocales ?? false };
}

export interface LocaleSummary {
  code: string;
  name: string;
  isDefault: boolean;
  fallback: string[];
}

/** The workspace's locales, read after taking the workspace's turn for locale writes. */
async function lockedLocales(tx: WriteClient, workspaceId: string): Promise<StoredLocale[]> {
  await takeWorkspaceTurn(tx, "locales", workspaceId);
  return tx.locale.findMany({
    where: { workspaceId },
    select: { id: true, code: true, isDefault: true, fallback: true },
  });
}

/**
 * Whether the locale has post translations, its row locked first: a translation being written now
 * (whose trigger reads the row FOR SHARE) has then either committed, and is counted, or waits and sees
 * the locale as the default, which the trigger refuses.
 */
async function holdsTranslations(tx: WriteClient, workspaceId: string, code: string): Promise<boolean> {
  await tx.$queryRawUnsafe(
    `SELECT 1 FROM "Locale" WHERE "workspaceId" = $1 AND code = $2 FOR UPDATE`,
    workspaceId,
    code,
  );
  // Category, tag and author translations too: the default's names are the records' own columns.
  const [held] = await tx.$queryRawUnsafe<{ held: boolean }[]>(
    `SELECT EXISTS (SELECT 1 FROM "PostTranslation" WHERE "workspaceId" = $1 AND locale = $2)
         OR EXISTS (SELECT 1 FROM "CategoryTranslation" WHERE "workspaceId" = $1 AND locale = $2)
         OR EXISTS (SELECT 1 FROM "TagTranslation" WHERE "workspaceId" = $1 AND locale = $2)
         OR EXISTS (SELECT 1 FROM "AuthorTranslation" WHERE "workspaceId" = $1 AND locale = $2) AS held`,
    workspaceId,
    code,
  );
  return held?.held === true;
}

/**
 * The locale's post translations, its row locked first, as holdsTranslations does: one being written
 * now has then either committed, and is listed, or waits and finds the locale gone.
 */
async function heldTranslations(tx: WriteClient, workspaceId: string, code: string) {
  await tx.$queryRawUnsafe(
    `SELECT 1 FROM "Locale" WHERE "workspaceId" = $1 AND code = $2 FOR UPDATE`,
    workspaceId,
    code,
  );
  return tx.postTranslation.findMany({
    where: { workspaceId, locale: code },
    select: { postId: true, slug: true, releasedAt: true },
    orderBy: { postId: "asc" },
  });
}

type NamedKind = "category" | "tag" | "author";

/**
 * The categories, tags and authors with a name in the locale (read after heldTranslations locked its
 * row), by kind, in one statement.
 */
function heldNames(
  tx: WriteClient,
  workspaceId: string,
  code: string,
): Promise<{ kind: NamedKind; id: string }[]> {
  return tx.$queryRawUnsafe(
    `SELECT 'category' AS kind, "categoryId" AS id FROM "CategoryTranslation" WHERE "workspaceId" = $1 AND locale = $2
     UNION ALL SELECT 'tag', "tagId" FROM "TagTranslation" WHERE "workspaceId" = $1 AND locale = $2
     UNION ALL SELECT 'author', "authorId" FROM "AuthorTranslation" WHERE "workspaceId" = $1 AND locale = $2
     ORDER BY kind, id`,
    workspaceId,
    code,
  );
}

/** What a locale holds, as its 409 says it: "2 post translations, 1 category translation and 1 author translation". */
function heldCounts(posts: number, names: readonly { kind: NamedKind }[]): string {
  const parts = (
    [
      ["post", posts],
      ...(["category", "tag", "author"] as const).map(
        (kind) => [kind, names.filter((name) => name.kind === kind).length] as const,
      ),
    ] as const
  )
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${count} ${kind} translation${count === 1 ? "" : "s"}`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}` : (parts[0] ?? "");
}

async function unsetDefault(uow: UnitOfWork, workspaceId: string, stored: StoredLocale[]): Promise<void> {
  for (const old of stored.filter((locale) => locale.isDefault)) {
    await uow.tx.locale.update({ where: { id: old.id }, data: { isDefault: false } });
    uow.changed({ resource: "locale", action: "updated", id: old.id, workspaceId });
  }
}

function checkChain(code: string, fallback: string[], stored: StoredLocale[]): void {
  const problems = fallbackProblems(code, fallback, new Set(stored.map((locale) => locale.code)));
  if (problems.length > 0) throw new InvalidInputError("Invalid fallback chain", problems);
  const chains = new Map(stored.map((locale) => [locale.code, locale.fallback]));
  const cycle = fallbackCycle(code, fallback, chains);
  if (cycle)
    throw new InvalidInputError(`The fallback chain would make a cycle: ${cycle.join(" → ")}`, [
      { field: "fallback", message: `Makes a cycle: ${cycle.join(" → ")}` },
    ]);
}

/** The chain with each code canonical (problems for those that are not), or undefined when not given. */
function canonicalFallback(
  fallback: readonly string[] | null | undefined,
  problems: ProblemList,
): string[] | undefined {
  if (fallback === undefined || fallback === null) return undefined;
  return fallback.map((entry, index) => {
    const checked = checkedLocaleCode(`fallback.${index}`, entry);
    if (typeof checked === "string") return checked;
    problems.add(checked.field, checked.message);
    return entry;
  });
}

function checkName(name: string | null | undefined, problems: ProblemList): void {
  problems.text("name", name, { max: MAX_NAME_LENGTH });
}

/** A locale a read names (the change log, the delta feed, a subscription), as the workspace has it. */
export interface NamedLocale {
  code: string;
  isDefault: boolean;
  /** Named by the request; false: the default, as a read without a locale reads. */
  named: boolean;
}

/**
 * The workspace's locale `locale` names (canonicalised), or its default when none is named. Malformed or
 * not one of the workspace's: a 400 naming `field`, with the words reads of posts use.
 */
export async function namedLocale(
  prisma: Pick<PrismaClient, "locale">,
  workspaceId: string,
  locale: string | null | undefined,
  field = "locale",
): Promise<NamedLocale> {
  const code = locale === undefined || locale === null ? null : requireLocaleCode(field, locale);
  const row = await prisma.locale.findFirst({
    where: { workspaceId, ...(code === null ? { isDefault: true } : { code }) },
    select: { code: true, isDefault: true },
  });
  if (!row)
    throw new InvalidInputError("Unknown locale", [
      { field, message: `"${code}" is not a locale of this workspace (see /v1/locales)` },
    ]);
  return { ...row, named: code !== null };
}
