// Any Marble-compatible /v1 API (Marble itself, or another instance of this service) as import records,
// read page by page with the key it is given: `import URL --from marble --key K`. Read: categories,
// tags, authors, posts (HTML, with their category, tags, authors, custom field values and dates) and,
// where the source offers them to the key, custom field definitions (/v1/fields), the media library
// (/v1/media) and each post's revisions (/v1/posts/{slug}/revisions). A source without those routes (or a
// key not allowed them) gives what it has: a cover image then comes over by its URL, and the import
// makes each post's first revision. Drafts and scheduled posts come over when the key may list them
// (`status=all`); with a public key, published posts only. Not carried over: webhooks (their secrets
// cannot be read), API keys, authors' e-mail addresses (the read form has none).
import { createHash } from "node:crypto";
import type {
  ImportedAuthor,
  ImportedField,
  ImportedMedia,
  ImportedPost,
  ImportedRevision,
  ImportedTaxonomy,
  ImportRecord,
} from "../../content/import/import-records.ts";
import { ImportSourceError, RemoteFetchError } from "../../domain/errors.ts";
import { type FetchedAnswer, fetchWithinLimits } from "../remote-fetch.ts";
import { isHttpUrl, mediaAtUrl } from "./remote-media.ts";
import type { ImportSource, SourceLimits } from "./source-types.ts";

/** The largest page the contract allows: fewest requests. */
const PAGE_LIMIT = 100;

interface Pagination {
  nextPage: number | null;
  totalItems?: number;
}
interface SourceRef {
  slug: string;
}
/** A record as a /v1 read shows it: the import record's fields under the source's `id`. */
type AsRead<T extends ImportRecord> = Omit<T, "kind" | "sourceId"> & { id: string };
/** The read form's post: relations as refs, attribution and fields possibly absent, no revisions. */
type SourcePost = Omit<
  AsRead<ImportedPost>,
  "category" | "tags" | "authors" | "attribution" | "fields" | "revisions"
> & {
  attribution?: string | null;
  category: SourceRef;
  tags: SourceRef[];
  authors: SourceRef[];
  fields?: Record<string, unknown>;
};
type SourceTaxonomy = AsRead<ImportedTaxonomy>;
type SourceAuthor = Omit<AsRead<ImportedAuthor>, "email" | "socials"> & {
  socials?: ImportedAuthor["socials"];
};
type SourceMedia = Omit<AsRead<ImportedMedia>, "load" | "size"> & { size: number };
type SourceField = AsRead<ImportedField>;

/** Answers the source may give for what it does not offer this key, or does not have: skipped. */
const NOT_OFFERED = new Set([401, 403, 404]);

// Every request goes through remote-fetch.ts (public addresses only, a deadline, at most maxPageBytes
// read), and a list is read for at most maxPages pages, ending at an empty page and refused at a page
// seen before: a source cannot hold the import, fill its memory, or keep it asking (an endless source
// made 54,000 requests in 40 s before these bounds).
class SourceApi {
  readonly base: string;

  constructor(
    location: string,
    private readonly key: string,
    private readonly limits: SourceLimits,
  ) {
    let url: URL;
    try {
      url = new URL(location);
    } catch {
      throw new ImportSourceError(
        `--from marble needs the API's URL (http://… or https://…), not ${location}`,
      );
    }
    if (!isHttpUrl(url.href))
      throw new ImportSourceError(`--from marble needs an http(s) URL, not ${location}`);
    // Given with or without its /v1 (and with or without a trailing slash), the base is the API root.
    this.base = url.href.replace(/\/+$/, "").replace(/\/v1$/, "");
  }

  /** The JSON body of a GET, or null when the source answers that it does not offer the route. */
  async get<T>(path: string, { optional = false } = {}): Promise<T | null> {
    const url = `${this.base}/v1${path}`;
    let answer: FetchedAnswer;
    try {
      answer = await fetchWithinLimits(this.limits.remote, {
        url,
        maxBytes: this.limits.maxPageBytes,
        headers: { authorization: `Bearer ${this.key}`, accept: "application/json" },
      });
    } catch (error) {
      throw error instanceof RemoteFetchError ? new ImportSourceError(error.message) : error;
    }
    if (optional && NOT_OFFERED.has(answer.status)) return null;
    if (answer.status === 401 || answer.status === 403)
      throw new ImportSourceError(`${url} refused the key (HTTP ${answer.status})`);
    // Nothing of what the source answered is repeated: the reason is the same for every failure.
    if (answer.status < 200 || answer.status > 299) throw new ImportSourceError(`${url} could not be read`);
    try {
      return JSON.parse(answer.body.toString("utf8")) as T;
    } catch {
      throw new ImportSourceError(`${url} did not answer JSON: not a /v1 API`);
    }
  }

  /** Every item of a paginated list, page by page (`member` names the list in the body). */
  async *pages<T>(path: string, member: string, { optional = false } = {}): AsyncGenerator<T> {
    const joiner = path.includes("?") ? "&" : "?";
    const pagesSeen = new Set<string>();
    let page: number | null = 1;
    while (page !== null) {
      if (pagesSeen.size >= this.limits.maxPages)
        throw new ImportSourceError(
          `${this.base}/v1${path} has more than ${this.limits.maxPages} pages (IMPORT_SOURCE_MAX_PAGES): stopped`,
        );
      const body: Record<string, unknown> | null = await this.get<Record<string, unknown>>(
        `${path}${joiner}limit=${PAGE_LIMIT}&page=${page}`,
        { optional },
      );
      if (!body) return;
      const items = body[member];
      if (!Array.isArray(items))
        throw new ImportSourceError(`${this.base}/v1${path} has no "${member}" list: not a /v1 API`);
      // An empty page ends the list, whatever the source says comes next.
      if (items.length === 0) return;
      const digest = createHash("sha256").update(JSON.stringify(items)).digest("base64");
      if (pagesSeen.has(digest))
        throw new ImportSourceError(
          `${this.base}/v1${path} gave the same page again (page ${page}): stopped, the source repeats itself`,
        );
      pagesSeen.add(digest);
      yield* items as T[];
      const next: unknown = (body.pagination as Pagination | undefined)?.nextPage ?? null;
      if (next !== null && !(Number.isInteger(next) && (next as number) > page))
        throw new ImportSourceError(
          `${this.base}/v1${path} gives page ${String(next)} after page ${page}: not a /v1 API`,
        );
      page = next as number | null;
    }
  }
}

export async function openMarbleApi(
  location: string,
  key: string | undefined,
  limits: SourceLimits,
): Promise<ImportSource> {
  if (!key)
    throw new ImportSourceError(
      "--from marble needs the source's API key (--key, --key-file or IMPORT_SOURCE_KEY)",
    );
  const api = new SourceApi(location, key, limits);
  // Read once before the import starts: a wrong URL or key fails here, not half-way.
  await api.get("/categories?limit=1");
  return { origin: `marble:${api.base}`, records: records(api), total: null };
}

async function* records(api: SourceApi): AsyncGenerator<ImportRecord> {
  for await (const category of api.pages<SourceTaxonomy>("/categories", "categories"))
    yield { kind: "category", ...taxonomy(category) };
  for await (const tag of api.pages<SourceTaxonomy>("/tags", "tags")) yield { kind: "tag", ...taxonomy(tag) };
  for await (const author of api.pages<SourceAuthor>("/authors", "authors"))
    yield {
      kind: "author",
      sourceId: author.id,
      slug: author.slug,
      name: author.name,
      image: author.image,
      bio: author.bio,
      role: author.role,
      email: null,
      socials: author.socials ?? [],
      ...dates(author),
    };
  const fields = await api.get<{ fields: SourceField[] }>("/fields", { optional: true });
  for (const field of fields?.fields ?? [])
    yield {
      kind: "field",
      sourceId: field.id,
      key: field.key,
      name: field.name,
      description: field.description,
      type: field.type,
      required: field.required,
      position: field.position,
      options: field.options.map(({ value, label, position, createdAt, updatedAt }) => ({
        value,
        label,
        position,
        ...dates({ createdAt, updatedAt }),
      })),
      ...dates(field),
    };
  const library = new Set<string>();
  for await (const media of api.pages<SourceMedia>("/media", "media", { optional: true })) {
    library.add(media.url);
    yield libraryMedia(media);
  }
  const drafts = await offersDrafts(api);
  const covers = new Set<string>();
  for await (const post of api.pages<SourcePost>(`/posts?status=${drafts ? "all" : "published"}`, "posts")) {
    // A cover outside the media library (or a source without one) comes over by its URL.
    if (isHttpUrl(post.coverImage) && !library.has(post.coverImage) && !covers.has(post.coverImage)) {
      covers.add(post.coverImage);
      yield mediaAtUrl(post.coverImage);
    }
    yield {
      kind: "post",
      sourceId: post.id,
      slug: post.slug,
      title: post.title,
      status: post.status,
      featured: post.featured,
      coverImage: post.coverImage,
      description: post.description,
      content: post.content,
      attribution: post.attribution ?? null,
      publishedAt: post.publishedAt,
      category: post.category.slug,
      tags: post.tags.map((tag) => tag.slug),
      authors: post.authors.map((author) => author.slug),
      fields: post.fields ?? {},
      revisions: await revisionsOf(api, post.slug),
      ...dates(post),
    };
  }
}

/** Whether the key may list drafts: a public key (or a source without `status`) is told no. */
async function offersDrafts(api: SourceApi): Promise<boolean> {
  return (await api.get("/posts?status=all&limit=1", { optional: true }).catch(() => null)) !== null;
}

/** A post's revisions, oldest first, where the source keeps them; none otherwise. */
async function revisionsOf(api: SourceApi, slug: string): Promise<ImportedRevision[]> {
  const revisions: ImportedRevision[] = [];
  for await (const revision of api.pages<ImportedRevision & { actorKeyId?: unknown }>(
    `/posts/${encodeURIComponent(slug)}/revisions`,
    "revisions",
    { optional: true },
  ))
    revisions.push({
      number: revision.number,
      createdAt: revision.createdAt,
      actorName: revision.actorName,
      snapshot: revision.snapshot,
    });
  return revisions.sort((a, b) => a.number - b.number);
}

function taxonomy(record: SourceTaxonomy) {
  return {
    sourceId: record.id,
    slug: record.slug,
    name: record.name,
    description: record.description,
    ...dates(record),
  };
}

/** A library file: fetched from its URL like any remote media, under the source's id, name and size. */
function libraryMedia(media: SourceMedia): ImportedMedia {
  return {
    ...mediaAtUrl(media.url, media.alt),
    sourceId: media.id,
    name: media.name,
    size: media.size,
    ...dates(media),
  };
}

/** The source's timestamps, when it gives them. */
function dates(record: { createdAt?: string; updatedAt?: string }) {
  return {
    ...(record.createdAt ? { createdAt: record.createdAt } : {}),
    ...(record.updatedAt ? { updatedAt: record.updatedAt } : {}),
  };
}
