// The `data` of an event: the resource as the REST GET returns it right after the change.
//
// Read here, through the unit of work's transaction client, at the writer's hook point: the change is
// visible to it before COMMIT, nothing outside the transaction is touched (on the embedded database a
// query beside an open transaction would wait for it forever), and the copy is exactly what commits
// with the event. The REST layer is above content and may not be imported, so the shapes are built here
// from rows, following src/rest/shapes.ts field by field; test/api/events.test.ts compares each
// resource's event data with a real `GET /v1/<resource>/{id}` made right after the write, so the two
// cannot drift apart unnoticed. Dates are ISO strings and enums lower case, as the REST bodies spell them.
import type { Prisma } from "../../generated/prisma/client.ts";
import type { Change } from "../change.ts";
import { LOCALE_COLUMNS } from "../locales/locale-columns.ts";
import { TRANSLATION_COLUMNS } from "../post-translation-columns.ts";
import { isScheduled, liveWhere } from "../post-visibility.ts";
import { fieldValuesObject } from "../taxonomy/custom-field-values.ts";

type Tx = Prisma.TransactionClient;

/** A resource's REST read form, or null when it no longer exists. */
export type Snapshot = Record<string, unknown> | null;

const AUTHOR_REF = {
  id: true,
  name: true,
  image: true,
  bio: true,
  role: true,
  slug: true,
  socials: true,
} as const;
const TAXONOMY_REF = { id: true, name: true, slug: true, description: true } as const;
/** Post links counted in a snapshot: those public at the moment of the write. */
const publishedPosts = () => ({ post: liveWhere(new Date()) });

export async function snapshotOf(tx: Tx, change: Change): Promise<Snapshot> {
  switch (change.resource) {
    case "post":
      return change.locale ? translationSnapshot(tx, change.id, change.locale) : postSnapshot(tx, change.id);
    case "category":
      return categorySnapshot(tx, change.id);
    case "tag":
      return tagSnapshot(tx, change.id);
    case "author":
      return authorSnapshot(tx, change.id);
    case "media":
      return mediaSnapshot(tx, change);
    case "field":
      return fieldSnapshot(tx, change.id);
    case "locale":
      return localeSnapshot(tx, change.id);
    case "webhook":
      return webhookSnapshot(tx, change.id);
    case "api_key":
      return apiKeySnapshot(tx, change.id);
    default:
      return null;
  }
}

/** Records the change feed (change-feed.ts) serves, by their resource names. */
export type FeedResource = "post" | "category" | "tag" | "author";

/**
 * A record's REST read form as it is now (the change feed's upserts), or null when it is gone; a post in
 * `locale` (issue 56): its default-locale form, naming the locale when `named`, or that translation's
 * (null when the post has none in it).
 */
export async function currentSnapshot(
  client: Tx,
  resource: FeedResource,
  id: string,
  locale: { code: string; isDefault: boolean; named: boolean },
): Promise<Snapshot> {
  switch (resource) {
    case "post": {
      if (!locale.isDefault) return translationSnapshot(client, id, locale.code);
      const post = await postSnapshot(client, id);
      return post && locale.named ? { ...post, locale: locale.code } : post;
    }
    case "category":
      return categorySnapshot(client, id);
    case "tag":
      return tagSnapshot(client, id);
    case "author":
      return authorSnapshot(client, id);
  }
}

/**
 * A post as its translation in `locale` shows it (issue 56): the post's shared fields with that
 * translation's localized ones, and `locale`. Null when the translation is gone (removed: the event
 * then carries the last known slug and the locale, change-log.ts).
 */
async function translationSnapshot(tx: Tx, id: string, locale: string): Promise<Snapshot> {
  const translation = await tx.postTranslation.findUnique({
    where: { postId_locale: { postId: id, locale } },
    select: TRANSLATION_COLUMNS,
  });
  const post = translation ? await postSnapshot(tx, id, locale) : null;
  if (!translation || !post) return null;
  const { unpublishAt, ...own } = translation;
  const { unpublishAt: _postUnpublishAt, ...shared } = post;
  return {
    ...shared,
    ...own,
    publishedAt: translation.publishedAt.toISOString(),
    scheduled: isScheduled(translation, new Date()),
    updatedAt: translation.updatedAt.toISOString(),
    // As the REST GET shows it: only when set (a public reader of the event must know it is gone then).
    ...(unpublishAt ? { unpublishAt: unpublishAt.toISOString() } : {}),
    locale,
  };
}

/** The post as the REST GET returns it; with `locale` (not the default), that translation's localized values. */
async function postSnapshot(tx: Tx, id: string, locale?: string): Promise<Snapshot> {
  // One statement (relationJoins): the post, its authors, category, tags, values and the definitions.
  const post = await tx.post.findUnique({
    where: { id },
    select: {
      id: true,
      slug: true,
      title: true,
      status: true,
      featured: true,
      coverImage: true,
      description: true,
      publishedAt: true,
      updatedAt: true,
      unpublishAt: true,
      attribution: true,
      content: true,
      authors: { orderBy: { position: "asc" }, select: { author: { select: AUTHOR_REF } } },
      category: { select: TAXONOMY_REF },
      // The order of every post read (src/graphql/post-selection.ts): by name, ties by id.
      tags: {
        orderBy: [{ tag: { name: "asc" } }, { tagId: "asc" }],
        select: { tag: { select: TAXONOMY_REF } },
      },
      fieldValues: { select: { fieldId: true, value: true } },
      workspace: {
        select: {
          fields: {
            orderBy: [{ position: "asc" }, { createdAt: "asc" }],
            select: { id: true, key: true, type: true, localized: true },
          },
        },
      },
      ...(locale
        ? {
            translations: {
              where: { locale },
              select: { fieldValues: { select: { fieldId: true, value: true } } },
            },
          }
        : {}),
    },
  });
  if (!post) return null;
  const { authors, tags, fieldValues, workspace, translations, unpublishAt, ...columns } =
    post as typeof post & {
      translations?: { fieldValues: { fieldId: string; value: unknown }[] }[];
    };
  // A translation's localized values are its own (issue 56), every one of them.
  const localizedIds = new Set(workspace.fields.filter((f) => f.localized).map((f) => f.id));
  const values = translations
    ? [
        ...fieldValues.filter((value) => !localizedIds.has(value.fieldId)),
        ...(translations[0]?.fieldValues ?? []).filter((value) => localizedIds.has(value.fieldId)),
      ]
    : fieldValues;
  return {
    ...columns,
    publishedAt: post.publishedAt.toISOString(),
    scheduled: isScheduled(post, new Date()),
    updatedAt: post.updatedAt.toISOString(),
    // Only when set, as the REST GET shows it (existing bodies unchanged).
    ...(unpublishAt ? { unpublishAt: unpublishAt.toISOString() } : {}),
    authors: authors.map((link) => authorRef(link.author)),
    tags: tags.map((link) => link.tag),
    fields: fieldValuesObject(workspace.fields, values),
  };
}

async function categorySnapshot(tx: Tx, id: string): Promise<Snapshot> {
  const row = await tx.category.findUnique({
    where: { id },
    select: { ...TAXONOMY_REF, _count: { select: { posts: { where: liveWhere(new Date()) } } } },
  });
  return row && withCount(row);
}

async function tagSnapshot(tx: Tx, id: string): Promise<Snapshot> {
  const row = await tx.tag.findUnique({
    where: { id },
    select: { ...TAXONOMY_REF, _count: { select: { posts: { where: publishedPosts() } } } },
  });
  return row && withCount(row);
}

async function authorSnapshot(tx: Tx, id: string): Promise<Snapshot> {
  const row = await tx.author.findUnique({
    where: { id },
    select: { ...AUTHOR_REF, _count: { select: { posts: { where: publishedPosts() } } } },
  });
  if (!row) return null;
  const { _count, ...author } = row;
  return { ...authorRef(author), count: { posts: _count.posts } };
}

async function mediaSnapshot(tx: Tx, change: Change): Promise<Snapshot> {
  const { mediaUrl } = change;
  if (!mediaUrl)
    throw new Error("A media change must give its mediaUrl (the event carries the record's url)");
  const row = await tx.media.findUnique({ where: { id: change.id } });
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    url: mediaUrl(row.storageKey),
    alt: row.alt,
    size: row.size,
    mimeType: row.mimeType,
    width: row.width,
    height: row.height,
    duration: row.duration,
    blurHash: row.blurHash,
    type: row.type,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function fieldSnapshot(tx: Tx, id: string): Promise<Snapshot> {
  const row = await tx.field.findUnique({
    where: { id },
    select: {
      id: true,
      key: true,
      name: true,
      description: true,
      type: true,
      required: true,
      position: true,
      createdAt: true,
      updatedAt: true,
      options: {
        orderBy: { position: "asc" },
        select: { id: true, value: true, label: true, position: true, createdAt: true, updatedAt: true },
      },
    },
  });
  if (!row) return null;
  return {
    ...row,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    options: row.options.map((option) => ({
      ...option,
      createdAt: option.createdAt.toISOString(),
      updatedAt: option.updatedAt.toISOString(),
    })),
  };
}

/** A locale as GET /v1/locales lists it. */
async function localeSnapshot(tx: Tx, id: string): Promise<Snapshot> {
  const row = await tx.locale.findUnique({ where: { id }, select: LOCALE_COLUMNS });
  if (!row) return null;
  return { ...row, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}

function authorRef<T extends { socials: Prisma.JsonValue }>(author: T) {
  return { ...author, socials: Array.isArray(author.socials) ? author.socials : [] };
}

function withCount<T extends { _count: { posts: number } }>(row: T) {
  const { _count, ...record } = row;
  return { ...record, count: { posts: _count.posts } };
}

/** A webhook endpoint as GET /v1/webhooks/{id} answers it (never its secrets): webhook.disabled's data. */
async function webhookSnapshot(tx: Tx, id: string): Promise<Snapshot> {
  const row = await tx.webhookEndpoint.findUnique({
    where: { id },
    select: {
      id: true,
      url: true,
      description: true,
      events: true,
      enabled: true,
      disabledAt: true,
      disabledReason: true,
      previousSecretExpiresAt: true,
      createdAt: true,
      updatedAt: true,
    },
  });
  if (!row) return null;
  const { previousSecretExpiresAt, disabledAt } = row;
  return {
    ...row,
    disabledAt: disabledAt?.toISOString() ?? null,
    // As the read shows it: only while the previous secret still signs.
    previousSecretExpiresAt:
      previousSecretExpiresAt && previousSecretExpiresAt > new Date()
        ? previousSecretExpiresAt.toISOString()
        : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** An API key as GET /v1/keys lists it (never its hash): the data of its audit events. */
async function apiKeySnapshot(tx: Tx, id: string): Promise<Snapshot> {
  const row = await tx.apiKey.findUnique({
    where: { id },
    select: {
      id: true,
      name: true,
      kind: true,
      displayHint: true,
      scopes: true,
      createdAt: true,
      expiresAt: true,
      revokedAt: true,
      revokedReason: true,
      rotatedFromId: true,
      graceEndsAt: true,
    },
  });
  if (!row) return null;
  return {
    ...row,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    graceEndsAt: row.graceEndsAt?.toISOString() ?? null,
  };
}
