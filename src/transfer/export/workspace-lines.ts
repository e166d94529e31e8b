// Reads a workspace as the portable format's lines (archive/portable-lines.ts), kind by kind, a page at a
// time (by id: a stable order that needs no offset), so memory holds one page whatever the size.
// References are written as slugs (a field by its key): they survive the move to another workspace,
// where ids are new.
import type { ImportKind } from "../../content/import/import-records.ts";
import { LOCALE_COLUMNS } from "../../content/locales/locale-columns.ts";
import { TRANSLATION_COLUMNS } from "../../content/post-translation-columns.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { absoluteMediaReferences, absoluteMediaReferencesIn } from "../../media/media-references.ts";
import type { MediaStorage } from "../../media/storage.ts";
import type { PortableLine } from "../archive/portable-lines.ts";
import { mediaFileEntryName } from "../format.ts";

const PAGE = 200;
/** A post carries up to REVISIONS_KEEP snapshots of itself: fewer per page keep a page's memory small. */
const POST_PAGE = 20;

const iso = (date: Date) => date.toISOString();

/** Pages through `read` by id until a short page. */
async function* paged<Row extends { id: string }>(
  read: (after: string | undefined) => Promise<Row[]>,
  size = PAGE,
): AsyncGenerator<Row> {
  let after: string | undefined;
  for (;;) {
    const rows = await read(after);
    yield* rows;
    if (rows.length < size) return;
    after = rows[rows.length - 1]?.id;
  }
}

const page = (after: string | undefined, size = PAGE) => ({
  orderBy: { id: "asc" as const },
  take: size,
  ...(after ? { cursor: { id: after }, skip: 1 } : {}),
});

export async function countRecords(
  prisma: PrismaClient,
  workspaceId: string,
): Promise<Record<ImportKind, number>> {
  const where = { workspaceId };
  const [locale, category, tag, author, field, media, post, webhook] = await Promise.all([
    prisma.locale.count({ where }),
    prisma.category.count({ where }),
    prisma.tag.count({ where }),
    prisma.author.count({ where }),
    prisma.field.count({ where }),
    prisma.media.count({ where }),
    prisma.post.count({ where }),
    prisma.webhookEndpoint.count({ where }),
  ]);
  return { locale, category, tag, author, field, media, post, webhook };
}

/**
 * The workspace's locales (a few: read at once), the default first and then by code, each after the
 * locales its fallback chain names, so an import can check a chain against locales it has written.
 */
export async function* localeLines(
  prisma: PrismaClient,
  workspaceId: string,
): AsyncGenerator<PortableLine<"locale">> {
  const rows = await prisma.locale.findMany({
    where: { workspaceId },
    orderBy: [{ isDefault: "desc" }, { code: "asc" }],
    select: LOCALE_COLUMNS,
  });
  const byCode = new Map(rows.map((row) => [row.code, row]));
  const written = new Set<string>();
  const ordered: typeof rows = [];
  // Chains are acyclic (locales.ts): a depth-first walk puts each locale after its chain's.
  const visit = (row: (typeof rows)[number]) => {
    if (written.has(row.code)) return;
    written.add(row.code);
    for (const code of row.fallback) {
      const next = byCode.get(code);
      if (next) visit(next);
    }
    ordered.push(row);
  };
  for (const row of rows) visit(row);
  for (const row of ordered) yield { ...row, createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) };
}

export async function* taxonomyLines(
  prisma: PrismaClient,
  workspaceId: string,
  kind: "category" | "tag",
): AsyncGenerator<PortableLine<"category">> {
  const select = {
    id: true,
    slug: true,
    name: true,
    description: true,
    createdAt: true,
    updatedAt: true,
    translations: {
      select: { locale: true, name: true, description: true },
      orderBy: { locale: "asc" as const },
    },
  };
  const rows = paged((after) =>
    kind === "category"
      ? prisma.category.findMany({ where: { workspaceId }, select, ...page(after) })
      : prisma.tag.findMany({ where: { workspaceId }, select, ...page(after) }),
  );
  for await (const row of rows)
    yield { ...row, createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) };
}

/** Stored files named relative (media-references.ts) are written absolute: the archive's media lines name them so. */
export async function* authorLines(
  prisma: PrismaClient,
  storage: MediaStorage,
  workspaceId: string,
): AsyncGenerator<PortableLine<"author">> {
  for await (const row of paged((after) =>
    prisma.author.findMany({
      where: { workspaceId },
      include: {
        translations: { select: { locale: true, name: true, bio: true }, orderBy: { locale: "asc" } },
      },
      ...page(after),
    }),
  )) {
    yield {
      id: row.id,
      slug: row.slug,
      name: row.name,
      image: absoluteMediaReferences(row.image, (key) => storage.urlFor(key)),
      bio: row.bio,
      role: row.role,
      email: row.email,
      socials: row.socials as PortableLine<"author">["socials"],
      translations: row.translations,
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    };
  }
}

export async function* fieldLines(
  prisma: PrismaClient,
  workspaceId: string,
): AsyncGenerator<PortableLine<"field">> {
  const rows = paged((after) =>
    prisma.field.findMany({
      where: { workspaceId },
      include: { options: { orderBy: { position: "asc" } } },
      ...page(after),
    }),
  );
  for await (const row of rows) {
    yield {
      id: row.id,
      key: row.key,
      name: row.name,
      description: row.description,
      type: row.type,
      required: row.required,
      localized: row.localized,
      position: row.position,
      options: row.options.map(({ value, label, position, createdAt, updatedAt }) => ({
        value,
        label,
        position,
        createdAt: iso(createdAt),
        updatedAt: iso(updatedAt),
      })),
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
    };
  }
}

/** Media lines with their stored object's key (to stream its bytes after the chunk). */
export async function* mediaLines(
  prisma: PrismaClient,
  storage: MediaStorage,
  workspaceId: string,
): AsyncGenerator<PortableLine<"media"> & { storageKey: string }> {
  for await (const row of paged((after) =>
    prisma.media.findMany({ where: { workspaceId }, ...page(after) }),
  )) {
    yield {
      id: row.id,
      file: mediaFileEntryName(row.storageKey),
      url: storage.urlFor(row.storageKey),
      name: row.name,
      alt: row.alt,
      size: row.size,
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
      storageKey: row.storageKey,
    };
  }
}

/** Covers and bodies as authorLines writes images: absolute. */
export async function* postLines(
  prisma: PrismaClient,
  storage: MediaStorage,
  workspaceId: string,
): AsyncGenerator<PortableLine<"post">> {
  const defaultLocale = await prisma.locale.findFirst({
    where: { workspaceId, isDefault: true },
    select: { code: true },
  });
  const rows = paged(
    (after) =>
      prisma.post.findMany({
        where: { workspaceId },
        select: {
          id: true,
          slug: true,
          title: true,
          status: true,
          featured: true,
          coverImage: true,
          description: true,
          content: true,
          attribution: true,
          publishedAt: true,
          unpublishAt: true,
          createdAt: true,
          updatedAt: true,
          category: { select: { slug: true } },
          tags: { select: { tag: { select: { slug: true } } }, orderBy: { tagId: "asc" } },
          authors: { select: { author: { select: { slug: true } } }, orderBy: { position: "asc" } },
          fieldValues: { select: { value: true, field: { select: { key: true } } } },
          revisions: {
            orderBy: { number: "asc" },
            select: { number: true, createdAt: true, actorName: true, snapshot: true, locale: true },
          },
          translations: {
            orderBy: { locale: "asc" },
            select: {
              locale: true,
              ...TRANSLATION_COLUMNS,
              unpublishAt: true,
              createdAt: true,
              fieldValues: {
                select: { value: true, field: { select: { key: true } } },
                orderBy: { fieldId: "asc" },
              },
            },
          },
        },
        ...page(after, POST_PAGE),
      }),
    POST_PAGE,
  );
  for await (const row of rows) {
    yield {
      id: row.id,
      ...(defaultLocale ? { locale: defaultLocale.code } : {}),
      slug: row.slug,
      title: row.title,
      status: row.status,
      featured: row.featured,
      coverImage: absoluteMediaReferences(row.coverImage, (key) => storage.urlFor(key)),
      description: row.description,
      content: absoluteMediaReferences(row.content, (key) => storage.urlFor(key)),
      attribution: row.attribution,
      publishedAt: iso(row.publishedAt),
      unpublishAt: row.unpublishAt && iso(row.unpublishAt),
      createdAt: iso(row.createdAt),
      updatedAt: iso(row.updatedAt),
      category: row.category.slug,
      tags: row.tags.map((link) => link.tag.slug),
      authors: row.authors.map((link) => link.author.slug),
      fields: Object.fromEntries(row.fieldValues.map((value) => [value.field.key, value.value])),
      revisions: row.revisions.map((revision) => ({
        number: revision.number,
        // The translation it is of: the default's code for the post's own (stored as null).
        ...(defaultLocale ? { locale: revision.locale ?? defaultLocale.code } : {}),
        createdAt: iso(revision.createdAt),
        actorName: revision.actorName,
        // A revision is the post's read form as stored: relative references made absolute as above.
        snapshot: absoluteMediaReferencesIn(revision.snapshot, (key) => storage.urlFor(key)) as Record<
          string,
          unknown
        >,
      })),
      translations: row.translations.map(({ fieldValues, ...translation }) => ({
        ...translation,
        content: absoluteMediaReferences(translation.content, (key) => storage.urlFor(key)),
        publishedAt: iso(translation.publishedAt),
        unpublishAt: translation.unpublishAt && iso(translation.unpublishAt),
        createdAt: iso(translation.createdAt),
        updatedAt: iso(translation.updatedAt),
        // Its values of localized custom fields (the shared fields' are the post's `fields`).
        fields: Object.fromEntries(fieldValues.map((value) => [value.field.key, value.value])),
      })),
    };
  }
}

/** Webhook endpoints without their secrets (never exported): the target makes new ones. */
export async function* webhookLines(
  prisma: PrismaClient,
  workspaceId: string,
): AsyncGenerator<PortableLine<"webhook">> {
  const rows = paged((after) =>
    prisma.webhookEndpoint.findMany({
      where: { workspaceId },
      select: {
        id: true,
        url: true,
        description: true,
        events: true,
        enabled: true,
        createdAt: true,
        updatedAt: true,
      },
      ...page(after),
    }),
  );
  for await (const row of rows)
    yield { ...row, createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt) };
}
