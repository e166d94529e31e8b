// What an import does with locales and post translations (issue 56; format version 2, Hugo's
// multilingual trees): which locale record changes what in the workspace, which of a post's versions is
// its own row (the one in the workspace's default locale: docs/decisions.md, "Post translations"), whether
// its translations can be written (their locales exist, their slugs are free), and writing them.
// import-writes.ts calls these inside the batch's unit of work, or with none for a dry run.
import { canonicalLocaleCode, localeCodeProblem } from "../../domain/locale-codes.ts";
import { defaultLocaleName, fallbackCycle, fallbackProblems } from "../locales/locale-rules.ts";
import { isLive } from "../post-visibility.ts";
import { sanitizeHtml } from "../sanitize-html.ts";
import { isValidSlug } from "../slugs.ts";
import { type ReadClient, takeWorkspaceTurn, type UnitOfWork } from "../writer.ts";
import type {
  ImportedLocale,
  ImportedPost,
  ImportedRevision,
  ImportedTranslation,
} from "./import-records.ts";
import type { ImportTarget, Written } from "./import-target.ts";

export type LocalePlan =
  | { failed: string }
  | {
      code: string;
      /** The workspace's locale of that code, when it has one. */
      id: string | null;
      name: string;
      fallback: string[];
      /** Whether an existing locale's name, chain or default changes. */
      changes: boolean;
      becomesDefault: boolean;
      /** The locale that is the default until then. */
      oldDefault: string | null;
      /** Why the record's `isDefault` was not followed, when it was not. */
      refusedDefault: string | null;
    };

/**
 * What writing a locale record changes. Locale writes of a workspace take turns (locales.ts): the
 * import's take the same turn, so a chain checked here cannot make a cycle with a concurrent API write.
 */
export async function localePlan(
  client: ReadClient,
  uow: UnitOfWork | null,
  target: ImportTarget,
  record: ImportedLocale,
): Promise<LocalePlan> {
  const code = canonicalLocaleCode(record.code);
  if (!code) return { failed: localeCodeProblem(record.code) };
  const fallback: string[] = [];
  for (const entry of record.fallback ?? []) {
    const canonical = canonicalLocaleCode(entry);
    if (!canonical) return { failed: `fallback: ${localeCodeProblem(entry)}` };
    fallback.push(canonical);
  }
  if (uow) await takeWorkspaceTurn(uow.tx, "locales", target.workspaceId);
  const stored = await client.locale.findMany({
    where: { workspaceId: target.workspaceId },
    select: { id: true, code: true, name: true, isDefault: true, fallback: true },
  });
  // By code, whatever the ledger says: a code names one locale of a workspace.
  const here = stored.find((locale) => locale.code === code) ?? null;
  const known = new Set(stored.map((locale) => locale.code));
  const plannedKnown = new Set([
    ...known,
    ...fallback.filter((entry) => target.links.isPlanned("locale", entry)),
  ]);
  const chain = record.fallback ? fallback : (here?.fallback ?? []);
  const problems = fallbackProblems(code, chain, target.dryRun ? plannedKnown : known);
  if (problems.length > 0)
    return { failed: problems.map((problem) => `${problem.field}: ${problem.message}`).join("; ") };
  const cycle = fallbackCycle(code, chain, new Map(stored.map((locale) => [locale.code, locale.fallback])));
  if (cycle) return { failed: `its fallback chain would make a cycle: ${cycle.join(" → ")}` };
  const oldDefault = stored.find((locale) => locale.isDefault) ?? null;
  let becomesDefault = record.isDefault === true && !here?.isDefault;
  let refusedDefault: string | null = null;
  if (becomesDefault) {
    const posts = await client.post.count({ where: { workspaceId: target.workspaceId } });
    if (posts > 0) {
      becomesDefault = false;
      refusedDefault = `"${code}" is the source's default locale but not made this workspace's (its default stays "${oldDefault?.code}"): the workspace has posts, whose own fields are in its default locale`;
    }
  }
  const name = record.name ?? here?.name ?? defaultLocaleName(code);
  const changes =
    here !== null && (name !== here.name || chain.join(",") !== here.fallback.join(",") || becomesDefault);
  return {
    code,
    id: here?.id ?? null,
    name,
    fallback: chain,
    changes,
    becomesDefault,
    oldDefault: becomesDefault ? (oldDefault?.id ?? null) : null,
    refusedDefault,
  };
}

/** The post's own localized fields as a translation. */
function ownVersion(record: ImportedPost, locale: string): ImportedTranslation {
  return {
    locale,
    slug: record.slug,
    title: record.title,
    description: record.description,
    content: record.content,
    status: record.status,
    publishedAt: record.publishedAt,
    ...(record.unpublishAt !== undefined ? { unpublishAt: record.unpublishAt } : {}),
    ...(record.createdAt ? { createdAt: record.createdAt } : {}),
    ...(record.updatedAt ? { updatedAt: record.updatedAt } : {}),
    // All of the post's values: those of localized fields are this version's (postReferences keeps those).
    fields: record.fields,
  };
}

/**
 * The record with its own fields in the workspace's default locale and the others as its translations
 * (a record of format version 1, without either, is returned as it is), each revision naming the
 * translation it is of (null: the default's, the post's own), or why it cannot be: a malformed locale,
 * two versions in one locale, or none in the default locale (whose translation is the post itself, so
 * a post without one has nowhere to go).
 */
export async function postInDefaultLocale(
  client: ReadClient,
  target: ImportTarget,
  record: ImportedPost,
): Promise<ImportedPost | string> {
  if (
    record.locale === undefined &&
    !record.translations?.length &&
    record.revisions.every((revision) => revision.locale === undefined || revision.locale === null)
  )
    return record;
  const stored = await client.locale.findFirst({
    where: { workspaceId: target.workspaceId, isDefault: true },
    select: { code: true },
  });
  const defaultCode = (target.dryRun ? target.links.plannedDefaultLocale : null) ?? stored?.code;
  if (!defaultCode) return "the workspace has no default locale";
  const versions: ImportedTranslation[] = [];
  for (const version of [ownVersion(record, record.locale ?? defaultCode), ...(record.translations ?? [])]) {
    const locale = canonicalLocaleCode(version.locale);
    if (!locale) return `its translation's locale: ${localeCodeProblem(version.locale)}`;
    if (versions.some((other) => other.locale === locale)) return `it has two translations in "${locale}"`;
    versions.push({ ...version, locale });
  }
  const own = versions.find((version) => version.locale === defaultCode);
  if (!own)
    return `it has no translation in the workspace's default locale "${defaultCode}" (only ${versions.map((version) => version.locale).join(", ")}): a post's default-locale translation is the post itself`;
  const ownLocale = versions[0]?.locale ?? defaultCode;
  const revisions: ImportedRevision[] = [];
  for (const revision of record.revisions) {
    const locale =
      revision.locale === undefined || revision.locale === null
        ? ownLocale
        : canonicalLocaleCode(revision.locale);
    if (!locale)
      return `its revision ${revision.number}'s locale: ${localeCodeProblem(revision.locale ?? "")}`;
    revisions.push({ ...revision, locale: locale === defaultCode ? null : locale });
  }
  const { createdAt: _created, updatedAt: _updated, fields: ownValues, ...columns } = own;
  return {
    ...record,
    ...columns,
    unpublishAt: own.unpublishAt,
    // The default-locale version's values of localized fields are the post's own.
    fields: { ...record.fields, ...ownValues },
    locale: defaultCode,
    revisions,
    translations: versions.filter((version) => version !== own),
  };
}

/**
 * Whether the record's translations can be written: each locale is the workspace's (or, in a dry run,
 * one the run would create), each slug valid and free in its scope (its locale's, or the workspace's when
 * slugs are unique across locales): PostSlug's unique index would otherwise fail the batch's transaction.
 */
export async function translationProblems(
  client: ReadClient,
  target: ImportTarget,
  record: ImportedPost,
  existing: string | null,
): Promise<Written | null> {
  const translations = record.translations ?? [];
  const { workspaceId } = target;
  const workspace = await client.workspace.findUnique({
    where: { id: workspaceId },
    select: { slugsUniqueAcrossLocales: true },
  });
  const across = workspace?.slugsUniqueAcrossLocales === true;
  const notThisPost = existing ? { NOT: { postId: existing } } : {};
  // The post's own slug, in the scope of the default's slugs, which holds every slug when unique across locales.
  if (across && translations.length > 0) {
    const holder = await client.postSlug.findFirst({
      where: { workspaceId, scope: "", slug: record.slug, ...notThisPost },
      select: { postId: true },
    });
    if (holder)
      return { outcome: "conflict", reason: `${record.slug} belongs to another post's translation here` };
  }
  if (translations.length === 0) return null;
  const locales = await client.locale.findMany({
    where: { workspaceId, code: { in: translations.map((translation) => translation.locale) } },
    select: { code: true },
  });
  const known = new Set(locales.map((locale) => locale.code));
  const slugs = new Set([record.slug]);
  for (const translation of translations) {
    const { locale, slug } = translation;
    if (!known.has(locale) && !(target.dryRun && target.links.isPlanned("locale", locale)))
      return {
        outcome: "failed",
        reason: `its "${locale}" translation: "${locale}" is not a locale of this workspace`,
      };
    if (!isValidSlug(slug))
      return { outcome: "failed", reason: `its "${locale}" translation: invalid slug "${slug}"` };
    if (across && slugs.has(slug))
      return {
        outcome: "failed",
        reason: `its "${locale}" translation's slug "${slug}" is another of its translations' (slugs are unique across locales here)`,
      };
    slugs.add(slug);
    const holder = await client.postSlug.findFirst({
      where: { workspaceId, scope: across ? "" : locale, slug, ...notThisPost },
      select: { postId: true },
    });
    if (holder)
      return {
        outcome: "conflict",
        reason: `its "${locale}" translation's slug "${slug}" belongs to another post here`,
      };
    const content = sanitizeHtml(target.links.rewriteUrls(translation.content));
    if (!content.trim() && translation.content.trim())
      return {
        outcome: "failed",
        reason: `its "${locale}" translation's body is empty once unsafe markup is removed`,
      };
  }
  return null;
}

const statusOf = (released: boolean) => (released ? ("published" as const) : ("draft" as const));

/**
 * The post's translations as the record has them, when it has any list of them: those it had before and
 * the record lacks are removed,
 * the others written anew (releasedAt kept where they were public, and a scheduled unpublish where the
 * record says nothing of one) with their values of localized fields (`values`: by locale, field id and
 * value, as postReferences found them). Each records its change with its locale, as a write through the
 * API does (posts.ts).
 */
export async function writeTranslations(
  uow: UnitOfWork,
  target: ImportTarget,
  postId: string,
  record: ImportedPost,
  existed: boolean,
  values: ReadonlyMap<string, [string, unknown][]> = new Map(),
): Promise<void> {
  // A record without translations at all (format version 1, a source without languages) says nothing
  // of them: those the post has (written through the API since) are left as they are.
  if (record.translations === undefined) return;
  const translations = record.translations;
  const before = existed
    ? await uow.tx.postTranslation.findMany({
        where: { postId },
        select: { locale: true, slug: true, releasedAt: true, unpublishAt: true },
      })
    : [];
  if (before.length === 0 && translations.length === 0) return;
  const now = new Date();
  const previous = new Map(before.map((row) => [row.locale, row]));
  await uow.tx.postTranslation.deleteMany({ where: { postId } });
  const rows = translations.map((translation) => {
    const publishedAt = new Date(translation.publishedAt);
    const unpublishAt =
      translation.unpublishAt === undefined
        ? (previous.get(translation.locale)?.unpublishAt ?? null)
        : translation.unpublishAt
          ? new Date(translation.unpublishAt)
          : null;
    // Public now by the one rule (post-visibility.ts): an unpublish already past makes it never released.
    const released = isLive({ status: translation.status, publishedAt, unpublishAt }, now);
    return {
      postId,
      workspaceId: target.workspaceId,
      locale: translation.locale,
      slug: translation.slug,
      title: translation.title,
      description: translation.description,
      content: sanitizeHtml(target.links.rewriteUrls(translation.content)),
      status: translation.status,
      publishedAt,
      releasedAt: released ? (previous.get(translation.locale)?.releasedAt ?? publishedAt) : null,
      unpublishAt,
      createdAt: translation.createdAt ? new Date(translation.createdAt) : now,
      updatedAt: translation.updatedAt ? new Date(translation.updatedAt) : now,
    };
  });
  if (rows.length > 0) await uow.tx.postTranslation.createMany({ data: rows });
  const valueRows = [...values].flatMap(([locale, entries]) =>
    entries.map(([fieldId, value]) => ({ locale, fieldId, value })),
  );
  // One jsonb parameter, as the post's own values (import-writes.ts, insertFieldValues).
  if (valueRows.length > 0)
    await uow.tx.$executeRaw`INSERT INTO "PostTranslationFieldValue" ("postId", locale, "fieldId", value)
      SELECT ${postId}, v.locale, v."fieldId", v.value
        FROM jsonb_to_recordset(${JSON.stringify(valueRows)}::jsonb) AS v(locale text, "fieldId" text, value jsonb)`;
  for (const row of rows) {
    const was = previous.get(row.locale);
    uow.changed({
      resource: "post",
      action: "updated",
      id: postId,
      workspaceId: target.workspaceId,
      locale: row.locale,
      statusChange: {
        from: was ? statusOf(was.releasedAt !== null) : null,
        to: statusOf(row.releasedAt !== null),
      },
    });
  }
  for (const was of before)
    if (!rows.some((row) => row.locale === was.locale))
      uow.changed({
        resource: "post",
        action: "updated",
        id: postId,
        workspaceId: target.workspaceId,
        locale: was.locale,
        slug: was.slug,
        statusChange: { from: statusOf(was.releasedAt !== null), to: "draft" },
      });
}
