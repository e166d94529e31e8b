// How one imported record is written (import-batch.ts calls this inside the batch's unit of work, or
// with no unit of work for a dry run, which decides the same and writes nothing). A record the ledger
// knows, whose row still exists, is skipped when unchanged and updated otherwise; any other record is
// created, unless its slug (key) already belongs to another record of the workspace: a conflict, left
// alone. Timestamps come from the source where it has them, so a workspace moved to another store reads
// the same.
import { POST_TEXT_LIMITS } from "../../domain/inputs.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import { generateEndpointSecret } from "../../webhooks/signing.ts";
import { endpointsFull, normalizedEvents, webhookEndpointProblems } from "../deliveries/webhook-endpoints.ts";
import { fanOutStart } from "../deliveries/webhook-fan-out.ts";
import { newId } from "../ids.ts";
import { isLive } from "../post-visibility.ts";
import { revisionSnapshotProblems } from "../posts/revision-snapshot.ts";
import { sanitizeHtml } from "../sanitize-html.ts";
import { isValidSlug } from "../slugs.ts";
import type { ReadClient, UnitOfWork } from "../writer.ts";
import type { LedgerEntry } from "./import-ledger.ts";
import { localePlan, postInDefaultLocale, translationProblems, writeTranslations } from "./import-locales.ts";
import type {
  ImportedAuthor,
  ImportedField,
  ImportedLocale,
  ImportedMedia,
  ImportedPost,
  ImportedTaxonomy,
  ImportedWebhook,
} from "./import-records.ts";
import type { ImportTarget, PreparedRecord, Written } from "./import-target.ts";
import { nameProblems, writeNames } from "./import-taxonomy-translations.ts";

export type { Written } from "./import-target.ts";

/** Revisions a post keeps, as a create without a request would (posts.ts). */
const KEEP_REVISIONS = 50;

type Json = Prisma.InputJsonValue;

const dateOr = (value: string | undefined, fallback: Date) => (value ? new Date(value) : fallback);

export async function writeImportedRecord(
  client: ReadClient,
  uow: UnitOfWork | null,
  target: ImportTarget,
  prepared: PreparedRecord,
  entry: LedgerEntry | null,
): Promise<Written> {
  const existing = entry
    ? await stillThere(client, target.workspaceId, prepared.record.kind, entry.targetId)
    : null;
  if (existing && entry?.fingerprint === prepared.fingerprint) {
    await remember(client, target, prepared.record, existing);
    return { outcome: "skipped", targetId: existing };
  }
  if (prepared.record.kind === "locale") return writeLocale(client, uow, target, prepared.record);
  // A post with translations: the one in the workspace's default locale is the post's own row.
  const record =
    prepared.record.kind === "post"
      ? await postInDefaultLocale(client, target, prepared.record)
      : prepared.record;
  if (typeof record === "string") return { outcome: "failed", reason: record };
  if (
    record.kind !== "media" &&
    record.kind !== "webhook" &&
    !isValidSlug(slugOrKey(record)) &&
    record.kind !== "field"
  )
    return { outcome: "failed", reason: `invalid slug "${slugOrKey(record)}"` };
  const owner = await ownerOfSlug(client, target.workspaceId, record);
  if (!uow && !owner) target.links.plan(record.kind, slugOrKey(record));
  if (owner && owner !== existing)
    return { outcome: "conflict", reason: `${slugOrKey(record)} belongs to another ${record.kind} here` };
  switch (record.kind) {
    case "category":
    case "tag":
      return writeTaxonomy(uow, target, record, existing);
    case "author":
      return writeAuthor(uow, target, record, existing);
    case "field":
      return writeField(uow, target, record, existing);
    case "media":
      return writeMedia(client, uow, target, record, existing, prepared);
    case "post":
      return writePost(client, uow, target, record, existing);
    case "webhook":
      return writeWebhook(client, uow, target, record, existing);
  }
}

function slugOrKey(record: PreparedRecord["record"]): string {
  if (record.kind === "field") return record.key;
  if (record.kind === "locale") return record.code;
  if (record.kind === "media" || record.kind === "webhook") return record.url;
  return record.slug;
}

async function stillThere(
  client: ReadClient,
  workspaceId: string,
  kind: PreparedRecord["record"]["kind"],
  id: string,
): Promise<string | null> {
  const where = { id, workspaceId };
  const select = { id: true } as const;
  const row =
    kind === "category"
      ? await client.category.findFirst({ where, select })
      : kind === "tag"
        ? await client.tag.findFirst({ where, select })
        : kind === "author"
          ? await client.author.findFirst({ where, select })
          : kind === "field"
            ? await client.field.findFirst({ where, select })
            : kind === "media"
              ? await client.media.findFirst({ where, select })
              : kind === "locale"
                ? await client.locale.findFirst({ where, select })
                : kind === "post"
                  ? await client.post.findFirst({ where, select })
                  : await client.webhookEndpoint.findFirst({ where, select });
  return row?.id ?? null;
}

/** The id of the record that holds the slug (key) in the workspace; media and webhooks have none. */
async function ownerOfSlug(
  client: ReadClient,
  workspaceId: string,
  record: PreparedRecord["record"],
): Promise<string | null> {
  const select = { id: true } as const;
  switch (record.kind) {
    case "category":
      return (
        (await client.category.findFirst({ where: { workspaceId, slug: record.slug }, select }))?.id ?? null
      );
    case "tag":
      return (await client.tag.findFirst({ where: { workspaceId, slug: record.slug }, select }))?.id ?? null;
    case "author":
      return (
        (await client.author.findFirst({ where: { workspaceId, slug: record.slug }, select }))?.id ?? null
      );
    case "field":
      return (await client.field.findFirst({ where: { workspaceId, key: record.key }, select }))?.id ?? null;
    case "post":
      return (await client.post.findFirst({ where: { workspaceId, slug: record.slug }, select }))?.id ?? null;
    default:
      return null;
  }
}

/** Teaches the links (import-links.ts) a record's new id and, for media, its new URL. */
async function remember(
  client: ReadClient,
  target: ImportTarget,
  record: PreparedRecord["record"],
  targetId: string,
): Promise<void> {
  target.links.rememberId(record.sourceId, targetId);
  if (record.kind !== "media") return;
  const row = await client.media.findUnique({ where: { id: targetId }, select: { storageKey: true } });
  if (row) target.links.rememberUrl(record.url, target.mediaReference(row.storageKey));
}

async function writeTaxonomy(
  uow: UnitOfWork | null,
  target: ImportTarget,
  record: ImportedTaxonomy,
  existing: string | null,
): Promise<Written> {
  if (!uow) return { outcome: existing ? "updated" : "created" };
  const names = record.translations?.map(({ locale, name, description }) => ({
    locale,
    name,
    text: description,
  }));
  const problem = await nameProblems(uow, target, names);
  if (problem) return { outcome: "failed", reason: problem };
  const now = new Date();
  const data = {
    name: record.name,
    slug: record.slug,
    description: record.description,
    updatedAt: dateOr(record.updatedAt, now),
  };
  const model = uow.tx[record.kind] as unknown as {
    create(args: object): Promise<{ id: string }>;
    update(args: object): Promise<{ id: string }>;
  };
  const row = existing
    ? await model.update({ where: { id: existing }, data, select: { id: true } })
    : await model.create({
        data: { ...data, workspaceId: target.workspaceId, createdAt: dateOr(record.createdAt, now) },
        select: { id: true },
      });
  await writeNames(uow, target, record.kind, row.id, names);
  return done(uow, target, record, row.id, existing);
}

async function writeAuthor(
  uow: UnitOfWork | null,
  target: ImportTarget,
  record: ImportedAuthor,
  existing: string | null,
): Promise<Written> {
  if (!uow) return { outcome: existing ? "updated" : "created" };
  const names = record.translations?.map(({ locale, name, bio }) => ({ locale, name, text: bio }));
  const problem = await nameProblems(uow, target, names);
  if (problem) return { outcome: "failed", reason: problem };
  const now = new Date();
  const data = {
    name: record.name,
    slug: record.slug,
    image: target.links.rewriteUrls(record.image),
    bio: record.bio,
    role: record.role,
    email: record.email,
    socials: record.socials as unknown as Json,
    updatedAt: dateOr(record.updatedAt, now),
  };
  const row = existing
    ? await uow.tx.author.update({ where: { id: existing }, data, select: { id: true } })
    : await uow.tx.author.create({
        data: { ...data, workspaceId: target.workspaceId, createdAt: dateOr(record.createdAt, now) },
        select: { id: true },
      });
  await writeNames(uow, target, "author", row.id, names);
  return done(uow, target, record, row.id, existing);
}

async function writeField(
  uow: UnitOfWork | null,
  target: ImportTarget,
  record: ImportedField,
  existing: string | null,
): Promise<Written> {
  if (!uow) return { outcome: existing ? "updated" : "created" };
  const now = new Date();
  const options = record.options.map((option) => ({
    ...option,
    createdAt: dateOr(option.createdAt, now),
    updatedAt: dateOr(option.updatedAt, now),
  }));
  const data = {
    key: record.key,
    name: record.name,
    description: record.description,
    type: record.type,
    required: record.required,
    // Absent (an archive before it, another source): a field the workspace has keeps its setting.
    ...(record.localized !== undefined ? { localized: record.localized } : {}),
    position: record.position,
    updatedAt: dateOr(record.updatedAt, now),
  };
  let id = existing;
  if (id) {
    await uow.tx.fieldOption.deleteMany({ where: { fieldId: id } });
    // Shared now: the translations' own values go, as when the API turns a field shared (custom-fields.ts).
    if (record.localized === false)
      await uow.tx.postTranslationFieldValue.deleteMany({ where: { fieldId: id } });
    await uow.tx.field.update({ where: { id }, data: { ...data, options: { create: options } } });
  } else {
    const row = await uow.tx.field.create({
      data: {
        ...data,
        workspaceId: target.workspaceId,
        createdAt: dateOr(record.createdAt, now),
        options: { create: options },
      },
      select: { id: true },
    });
    id = row.id;
  }
  return done(uow, target, record, id, existing);
}

/** Why a media record whose bytes the workspace has is skipped. */
const SAME_FILE = "the same file as another media item";

async function writeMedia(
  client: ReadClient,
  uow: UnitOfWork | null,
  target: ImportTarget,
  record: ImportedMedia,
  existing: string | null,
  { media: stored, contentHash }: Pick<PreparedRecord, "media" | "contentHash">,
): Promise<Written> {
  if (!uow) return planMedia(client, target, existing, contentHash);
  const now = new Date();
  const data = { name: record.name, alt: record.alt, updatedAt: dateOr(record.updatedAt, now) };
  let id = existing;
  if (id) {
    await uow.tx.media.update({ where: { id }, data, select: { id: true } });
  } else {
    const same = contentHash ? await sameContent(uow.tx, target, contentHash) : null;
    if (same) {
      // The workspace has these bytes (an earlier import, or a record before this one): this record
      // names that media item, and the ledger remembers so (import-batch.ts).
      target.links.rememberId(record.sourceId, same.id);
      target.links.rememberUrl(record.url, target.mediaReference(same.storageKey));
      return { outcome: "skipped", targetId: same.id, reason: SAME_FILE, shared: true };
    }
    if (!stored) return { outcome: "failed", reason: "its file could not be read" };
    const row = await uow.tx.media.create({
      data: {
        ...data,
        ...stored,
        workspaceId: target.workspaceId,
        createdAt: dateOr(record.createdAt, now),
      },
      select: { id: true },
    });
    id = row.id;
  }
  const written = await done(uow, target, record, id, existing);
  const row = await uow.tx.media.findUnique({ where: { id }, select: { storageKey: true } });
  if (row) target.links.rememberUrl(record.url, target.mediaReference(row.storageKey));
  return written;
}

/**
 * A dry run's decision for a media record, as writeMedia decides it for real: the dry run has read and
 * hashed the file (import-run.ts) but stored nothing, so the bytes an earlier record of the run would
 * have stored are remembered as planned (`content:<hash>`) rather than found in the workspace.
 */
async function planMedia(
  client: ReadClient,
  target: ImportTarget,
  existing: string | null,
  contentHash: string | undefined,
): Promise<Written> {
  if (existing) return { outcome: "updated" };
  if (!contentHash) return { outcome: "failed", reason: "its file could not be read" };
  if (target.links.isPlanned("content", contentHash) || (await sameContent(client, target, contentHash)))
    return { outcome: "skipped", reason: SAME_FILE };
  target.links.plan("content", contentHash);
  return { outcome: "created" };
}

/** The workspace's media item with these bytes, if any (its first, should there be several). */
function sameContent(client: ReadClient, target: ImportTarget, contentHash: string) {
  return client.media.findFirst({
    where: { workspaceId: target.workspaceId, contentHash },
    orderBy: { createdAt: "asc" },
    select: { id: true, storageKey: true },
  });
}

async function writeWebhook(
  client: ReadClient,
  uow: UnitOfWork | null,
  target: ImportTarget,
  record: ImportedWebhook,
  existing: string | null,
): Promise<Written> {
  // The API's rules for an endpoint (its target above all: no file:, javascript: or loopback URL),
  // each broken one named in the reason.
  const { problems } = webhookEndpointProblems(
    { url: record.url, events: record.events, description: record.description },
    target.webhookPolicy,
  );
  if (problems.length > 0)
    return {
      outcome: "failed",
      reason: problems.map((problem) => `${problem.field}: ${problem.message}`).join("; "),
    };
  const full = existing ? null : await endpointsFull(client, target.workspaceId);
  if (full) return { outcome: "failed", reason: full };
  if (!uow) return { outcome: existing ? "updated" : "created" };
  const data = {
    url: record.url,
    description: record.description,
    events: normalizedEvents(record.events),
    enabled: record.enabled,
    updatedAt: dateOr(record.updatedAt, new Date()),
  };
  const row = existing
    ? await uow.tx.webhookEndpoint.update({ where: { id: existing }, data, select: { id: true } })
    : await uow.tx.webhookEndpoint.create({
        data: {
          ...data,
          workspaceId: target.workspaceId,
          createdAt: dateOr(record.createdAt, new Date()),
          // A new secret: secrets are never exported. Sent what is written after it, as any new endpoint.
          secret: generateEndpointSecret(),
          fannedOutTo: await fanOutStart(uow.tx, target.workspaceId),
        },
        select: { id: true },
      });
  return done(uow, target, record, row.id, existing);
}

async function writePost(
  client: ReadClient,
  uow: UnitOfWork | null,
  target: ImportTarget,
  record: ImportedPost,
  existing: string | null,
): Promise<Written> {
  // A revision is restorable later only if its snapshot holds what a restore writes back.
  for (const revision of record.revisions) {
    const [problem] = revisionSnapshotProblems(revision.snapshot);
    if (problem)
      return {
        outcome: "failed",
        reason: `its revision ${revision.number} is malformed: ${problem.field}: ${problem.message}`,
      };
  }
  const oversized = oversizedText(record) ?? malformedUnpublish(record);
  if (oversized) return { outcome: "failed", reason: oversized };
  const refs = await postReferences(client, target, record, uow === null);
  if ("missing" in refs) return { outcome: "failed", reason: refs.missing };
  const content = sanitizeHtml(target.links.rewriteUrls(record.content));
  // An empty post is a post (WordPress keeps published posts without a body); only a body that had
  // something and lost all of it to the sanitizer is refused, as the API refuses it.
  if (!content.trim() && record.content.trim())
    return { outcome: "failed", reason: "its body is empty once unsafe markup is removed" };
  const translationProblem = await translationProblems(client, target, record, existing);
  if (translationProblem) return translationProblem;
  if (!uow) return { outcome: existing ? "updated" : "created" };
  const now = new Date();
  const publishedAt = new Date(record.publishedAt);
  const unpublishAt = record.unpublishAt ? new Date(record.unpublishAt) : null;
  // Public now by the one rule (post-visibility.ts): an unpublish already past makes it never released.
  const released = isLive({ status: record.status, publishedAt, unpublishAt }, now);
  const before = existing
    ? await uow.tx.post.findUnique({ where: { id: existing }, select: { releasedAt: true } })
    : null;
  const columns = {
    slug: record.slug,
    title: record.title,
    status: record.status,
    featured: record.featured,
    coverImage: target.links.rewriteUrls(record.coverImage),
    description: record.description,
    content,
    attribution: record.attribution,
    publishedAt,
    releasedAt: released ? (before?.releasedAt ?? publishedAt) : null,
    // Absent (an archive before it, another source): none on a new post, an existing post's kept.
    ...(record.unpublishAt !== undefined ? { unpublishAt } : {}),
    updatedAt: dateOr(record.updatedAt, now),
    categoryId: refs.categoryId,
    tags: { create: refs.tagIds.map((tagId) => ({ tagId })) },
    authors: { create: refs.authorIds.map((authorId, position) => ({ authorId, position })) },
  };
  let id = existing;
  if (id) {
    const postId = id;
    await uow.tx.postTag.deleteMany({ where: { postId } });
    await uow.tx.postAuthor.deleteMany({ where: { postId } });
    await uow.tx.postFieldValue.deleteMany({ where: { postId } });
    if (record.revisions.length > 0) await uow.tx.postRevision.deleteMany({ where: { postId } });
    await uow.tx.post.update({ where: { id: postId }, data: columns, select: { id: true } });
  } else {
    id = newId();
    await uow.tx.post.create({
      data: { ...columns, id, workspaceId: target.workspaceId, createdAt: dateOr(record.createdAt, now) },
      select: { id: true },
    });
  }
  target.links.rememberId(record.sourceId, id);
  const postId = id;
  await insertFieldValues(uow, postId, refs.values);
  if (record.revisions.length > 0)
    await uow.tx.postRevision.createMany({
      data: record.revisions.map((revision) => ({
        id: `rev_${newId().slice(1)}`,
        postId,
        workspaceId: target.workspaceId,
        number: revision.number,
        // Null: the default locale's (postInDefaultLocale made it so).
        locale: revision.locale ?? null,
        createdAt: new Date(revision.createdAt),
        actorName: revision.actorName,
        snapshot: target.links.rewriteSnapshot(revision.snapshot) as Json,
      })),
    });
  uow.changed({
    resource: "post",
    action: existing ? "updated" : "created",
    id: postId,
    workspaceId: target.workspaceId,
    statusChange: {
      from: existing ? (before?.releasedAt ? "published" : "draft") : null,
      to: released ? "published" : "draft",
    },
    // The source's revisions are the post's history; without any, the import is its first write.
    ...(record.revisions.length === 0 ? { revision: { actor: null, keep: KEEP_REVISIONS } } : {}),
  });
  await writeTranslations(uow, target, postId, record, existing !== null, refs.translationValues);
  return { outcome: existing ? "updated" : "created", targetId: postId };
}

/** The API's length limits, checked before the body is sanitized or written. */
function oversizedText(record: ImportedPost): string | null {
  for (const field of ["title", "content", "description"] as const) {
    const length = record[field]?.length ?? 0;
    const limit = POST_TEXT_LIMITS[field];
    if (length > limit)
      return `its ${field === "content" ? "body" : field} is ${length.toLocaleString("en")} characters long; the limit is ${limit.toLocaleString("en")}`;
  }
  return null;
}

/** Why the record's scheduled unpublish (its own, a translation's) is not one, if it is not. */
function malformedUnpublish(record: ImportedPost): string | null {
  for (const version of [record, ...(record.translations ?? [])]) {
    const { unpublishAt } = version;
    if (unpublishAt && Number.isNaN(Date.parse(unpublishAt)))
      return `${version === record ? "its" : `its "${(version as { locale: string }).locale}" translation's`} unpublishAt "${unpublishAt}" is not a date`;
  }
  return null;
}

/**
 * A post's custom field values, in a statement of their own. Prisma writes a Json value into the
 * query's shape rather than as a parameter, so in the post's nested create every post with its own
 * values was a query never seen before: compiled anew and kept in the client's plan cache (1,000
 * plans, the cache's default), ~30 MB of the import's heap that no later post ever used (a heap
 * snapshot of the CLI's worker). On its own, the field values as one jsonb parameter, every post's
 * create is one of a few shapes (2,000 posts: 6). bench:transfer on the embedded store, 2,000 posts:
 * import 317 → 279 MB peak, 39 → 35 s.
 */
async function insertFieldValues(
  uow: UnitOfWork,
  postId: string,
  values: [string, unknown][],
): Promise<void> {
  if (values.length === 0) return;
  await uow.tx.$executeRaw`INSERT INTO "PostFieldValue" ("postId", "fieldId", value)
    SELECT ${postId}, v.key, v.value FROM jsonb_each(${JSON.stringify(Object.fromEntries(values))}::jsonb) AS v(key, value)`;
}

type PostReferences =
  | {
      categoryId: string;
      tagIds: string[];
      authorIds: string[];
      values: [string, unknown][];
      /** The translations' values of localized fields: by locale, [field id, value]. */
      translationValues: Map<string, [string, unknown][]>;
    }
  | { missing: string };

async function postReferences(
  client: ReadClient,
  target: ImportTarget,
  record: ImportedPost,
  dryRun: boolean,
): Promise<PostReferences> {
  const { workspaceId } = target;
  // A dry run wrote nothing: what it would have created counts as there.
  const planned = (kind: string, slug: string) => dryRun && target.links.isPlanned(kind, slug);
  const [category, tags, authors, fields] = await Promise.all([
    client.category.findFirst({ where: { workspaceId, slug: record.category }, select: { id: true } }),
    client.tag.findMany({
      where: { workspaceId, slug: { in: record.tags } },
      select: { id: true, slug: true },
    }),
    client.author.findMany({
      where: { workspaceId, slug: { in: record.authors } },
      select: { id: true, slug: true },
    }),
    client.field.findMany({ where: { workspaceId }, select: { id: true, key: true, localized: true } }),
  ]);
  if (!category && !planned("category", record.category))
    return { missing: `its category "${record.category}" is not in the workspace` };
  const plannedRows = (kind: string, slugs: readonly string[]) =>
    slugs.filter((slug) => planned(kind, slug)).map((slug) => ({ id: `planned:${slug}`, slug }));
  const tagIds = inOrder(record.tags, [...tags, ...plannedRows("tag", record.tags)]);
  const authorIds = inOrder(record.authors, [...authors, ...plannedRows("author", record.authors)]);
  if (typeof tagIds === "string") return { missing: `its tag "${tagIds}" is not in the workspace` };
  if (typeof authorIds === "string") return { missing: `its author "${authorIds}" is not in the workspace` };
  const fieldIds = new Map(fields.map((field) => [field.key, field.id]));
  const values: [string, unknown][] = [];
  for (const [key, value] of Object.entries(record.fields)) {
    if (value === null || value === undefined) continue;
    const fieldId = fieldIds.get(key) ?? (planned("field", key) ? `planned:${key}` : undefined);
    if (!fieldId) return { missing: `its custom field "${key}" is not defined in the workspace` };
    values.push([fieldId, value]);
  }
  const translationValues = new Map<string, [string, unknown][]>();
  const byKey = new Map(fields.map((field) => [field.key, field]));
  for (const translation of record.translations ?? []) {
    const entries: [string, unknown][] = [];
    for (const [key, value] of Object.entries(translation.fields ?? {})) {
      if (value === null || value === undefined) continue;
      const field = byKey.get(key);
      if (!field && !planned("field", key))
        return {
          missing: `its "${translation.locale}" translation's custom field "${key}" is not defined in the workspace`,
        };
      // A shared field's value is the post's: a translation has none of its own.
      if (field?.localized) entries.push([field.id, value]);
    }
    if (entries.length > 0) translationValues.set(translation.locale, entries);
  }
  return {
    categoryId: category?.id ?? `planned:${record.category}`,
    tagIds,
    authorIds,
    values,
    translationValues,
  };
}

/** The ids of `slugs` in their order, or the first slug that has none. */
function inOrder(slugs: readonly string[], rows: readonly { id: string; slug: string }[]): string[] | string {
  const bySlug = new Map(rows.map((row) => [row.slug, row.id]));
  const ids: string[] = [];
  for (const slug of new Set(slugs)) {
    const id = bySlug.get(slug);
    if (!id) return slug;
    ids.push(id);
  }
  return ids;
}

function done(
  uow: UnitOfWork,
  target: ImportTarget,
  record: Exclude<PreparedRecord["record"], ImportedPost>,
  id: string,
  existing: string | null,
): Written {
  target.links.rememberId(record.sourceId, id);
  const action = existing ? "updated" : "created";
  const resource = record.kind === "media" ? "media" : record.kind;
  uow.changed({
    resource,
    action,
    id,
    workspaceId: target.workspaceId,
    // The event names the file as the records naming it do (relative without PUBLIC_URL): made absolute
    // by the process that sends or reads the event, not on the importing CLI's port.
    ...(record.kind === "media" ? { mediaUrl: (key: string) => target.mediaReference(key) } : {}),
  });
  return { outcome: action, targetId: id };
}

/**
 * A locale (import-locales.ts decides): created when the workspace lacks its code; the workspace's own
 * otherwise, given the record's name and chain where it has them (an archive's; a markdown folder's
 * records name only the code). Made the default only while the workspace has no posts (their own rows
 * are in the default locale): otherwise kept beside the default and reported as a conflict.
 */
async function writeLocale(
  client: ReadClient,
  uow: UnitOfWork | null,
  target: ImportTarget,
  record: ImportedLocale,
): Promise<Written> {
  const plan = await localePlan(client, uow, target, record);
  if ("failed" in plan) return { outcome: "failed", reason: plan.failed };
  if (!uow) {
    target.links.plan("locale", plan.code);
    if (plan.becomesDefault) target.links.planDefaultLocale(plan.code);
    return plan.refusedDefault
      ? { outcome: "conflict", reason: plan.refusedDefault }
      : { outcome: plan.id ? (plan.changes ? "updated" : "skipped") : "created" };
  }
  const now = new Date();
  if (plan.becomesDefault && plan.oldDefault) {
    // The old default first: the partial unique index is checked per statement.
    await uow.tx.locale.update({ where: { id: plan.oldDefault }, data: { isDefault: false } });
    uow.changed({
      resource: "locale",
      action: "updated",
      id: plan.oldDefault,
      workspaceId: target.workspaceId,
    });
  }
  let id = plan.id;
  if (!id) {
    const row = await uow.tx.locale.create({
      data: {
        workspaceId: target.workspaceId,
        code: plan.code,
        name: plan.name,
        isDefault: plan.becomesDefault,
        fallback: plan.fallback,
        createdAt: dateOr(record.createdAt, now),
        updatedAt: dateOr(record.updatedAt, now),
      },
      select: { id: true },
    });
    id = row.id;
  } else if (plan.changes) {
    await uow.tx.locale.update({
      where: { id },
      data: {
        name: plan.name,
        fallback: plan.fallback,
        ...(plan.becomesDefault ? { isDefault: true } : {}),
        updatedAt: dateOr(record.updatedAt, now),
      },
    });
  } else {
    // The workspace's locale as the record has it: nothing to write, but the ledger remembers it.
    target.links.rememberId(record.sourceId, id);
    return plan.refusedDefault
      ? { outcome: "conflict", reason: plan.refusedDefault }
      : { outcome: "skipped", targetId: id, shared: true };
  }
  const written = done(uow, target, record, id, plan.id);
  return plan.refusedDefault ? { outcome: "conflict", reason: plan.refusedDefault } : written;
}
