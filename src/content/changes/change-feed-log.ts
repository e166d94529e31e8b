// The change feed's log phase (change-feed.ts): the records the events after a point of the log
// changed, at most `limit` per page whatever one event implies — a category rename reaching a
// thousand posts pages through them like any other list, the cursor stopping inside the event.
//
// Each event implies an ordered list of records: its own record, then for a post the category, tags
// and authors its previous and its new form name (both stored, so the list is the same on every
// read), then for a category, tag or author the posts linked to it now, by id (resumed after the last
// id served: a post linked or unlinked meanwhile has its own event later). The page takes them in log
// order, each record once in its latest state (a record met again moves to the end), and stops
// before the record that would make `limit + 1`, or after MAX_CONSIDERED_PER_PAGE records met
// (duplicates included), so one page's work stays bounded too.
//
// A public key sees a post that left its view only as public-departures.ts allows: a tombstone if it
// was public, nothing if never (a post reached only through a rename, and hidden now, is left out: its
// own events say whatever it may learn of it).
import type { Event, PrismaClient } from "../../generated/prisma/client.ts";
import { isLive } from "../post-visibility.ts";
import {
  type EventProgress,
  FEED_RESOURCES,
  type FeedEntry,
  type FeedPage,
  type FeedPosition,
  type FeedRequest,
  feedEvents,
  visible,
} from "./change-feed-model.ts";
import { linkedPostsAfter, previousPostForms, relatedOfPost } from "./change-feed-relations.ts";
import { carriesFormIn } from "./event-locales.ts";
import { currentSnapshot, type FeedResource } from "./event-snapshots.ts";
import {
  type FormBefore,
  liveThrough,
  NEVER_PUBLIC,
  type PublicLife,
  publicTombstone,
} from "./public-departures.ts";

/** Events read from the log at a time. */
const EVENTS_PER_READ = 100;
/** Posts linked to a changed category, tag or author read at a time. */
const POSTS_PER_READ = 100;
/** Records met on one page at most, duplicates included: many events touching the same few records. */
const MAX_CONSIDERED_PER_PAGE = 1_000;
/** Events read on one page at most: events implying nothing of the asked types still cost a read. */
const MAX_EVENTS_PER_PAGE = 1_000;

interface Implied {
  type: FeedResource;
  id: string;
  /** When the record left this key's view, if it did: the time of the event that last implied it. */
  at: Date;
  slug: string | null;
  /** Implied by an event of its own (not only as a record another one embeds or counts). */
  own: boolean;
}

interface PostHistory {
  /** Its read form before the event being read. */
  form: FormBefore;
  life: PublicLife;
}

/** Where the page starts: after the event at `position` (`eventId`), or inside it with `progress`. */
export interface LogStart {
  eventId: string | null;
  position: bigint;
  progress: EventProgress | null;
}

/** One page being filled: the records it holds, in order, and the posts' histories read so far. */
class Page {
  readonly implied = new Map<string, Implied>();
  readonly histories = new Map<string, PostHistory>();
  private considered = 0;

  constructor(private readonly request: FeedRequest) {}

  /** Adds a record; false when the page is full (the record is left for the next page). */
  take(item: Implied): boolean {
    if (!this.request.types.includes(item.type)) return true;
    const key = `${item.type}:${item.id}`;
    const known = this.implied.get(key);
    if (this.considered >= MAX_CONSIDERED_PER_PAGE || (!known && this.implied.size >= this.request.limit))
      return false;
    this.considered++;
    this.implied.delete(key);
    this.implied.set(
      key,
      known ? { ...item, own: known.own || item.own, slug: item.slug ?? known.slug } : item,
    );
    return true;
  }
}

export async function logPage(
  prisma: PrismaClient,
  request: FeedRequest,
  start: LogStart,
): Promise<FeedPage> {
  const page = new Page(request);
  let next: FeedPosition = { phase: "log", eventId: start.eventId, progress: start.progress };
  // Resuming inside an event reads that event again; posts' forms before are read from before it.
  const formsAt = start.progress ? start.position - 1n : start.position;
  let after = formsAt;
  let progress = start.progress;
  let read = 0;
  for (;;) {
    const events = await prisma.event.findMany({
      where: { workspaceId: request.workspaceId, position: { gt: after }, ...feedEvents(request) },
      orderBy: { position: "asc" },
      take: EVENTS_PER_READ,
    });
    await readHistories(prisma, request, events, formsAt, page.histories);
    for (const event of events) {
      const stopped = await expand(prisma, request, page, event, progress);
      if (stopped)
        return {
          entries: await render(prisma, request, page),
          next: { phase: "log", eventId: event.id, progress: stopped },
          hasMore: true,
        };
      progress = null;
      next = { phase: "log", eventId: event.id, progress: null };
      if (++read >= MAX_EVENTS_PER_PAGE)
        return { entries: await render(prisma, request, page), next, hasMore: true };
    }
    const last = events.at(-1);
    if (!last || events.length < EVENTS_PER_READ)
      return { entries: await render(prisma, request, page), next, hasMore: false };
    after = last.position;
  }
}

/** The form before the page of every post these events name that the page has not met yet. */
async function readHistories(
  prisma: PrismaClient,
  request: FeedRequest,
  events: Event[],
  formsAt: bigint,
  histories: Map<string, PostHistory>,
): Promise<void> {
  const unseen = events.filter((event) => event.type.startsWith("post.") && !histories.has(event.resourceId));
  if (unseen.length === 0) return;
  const forms = await previousPostForms(
    prisma,
    request.workspaceId,
    unseen.map((event) => event.resourceId),
    formsAt,
    request.locale,
  );
  for (const event of unseen)
    if (!histories.has(event.resourceId)) {
      const form = forms.get(event.resourceId);
      histories.set(event.resourceId, {
        // No event before: the post is new if this is its creation, else its earlier events were pruned.
        form: form ?? (event.type === "post.created" ? "none" : "unknown"),
        life: NEVER_PUBLIC,
      });
    }
}

/**
 * Adds the records `event` implies, skipping those `progress` says were served; returns where it
 * stopped when the page filled up, or null once the event's list is done.
 */
async function expand(
  prisma: PrismaClient,
  request: FeedRequest,
  page: Page,
  event: Event,
  progress: EventProgress | null,
): Promise<EventProgress | null> {
  const type = resourceOf(event.type);
  if (!type) return null;
  const at = event.createdAt;
  const own: Implied = { type, id: event.resourceId, at, slug: event.slug, own: true };
  // Keyed, so a record both forms name is listed once: the list is the same on every read of it.
  const items = new Map<string, Implied>([[`${type}:${own.id}`, own]]);
  if (type === "post") {
    const history = page.histories.get(event.resourceId) ?? { form: "unknown", life: NEVER_PUBLIC };
    if (countsCanChange(request, history.form, event))
      for (const form of [history.form, event.data])
        for (const related of relatedOfPost(form))
          items.set(`${related.type}:${related.id}`, { ...related, at, slug: null, own: false });
    // The post's history in the feed's locale: its forms there, and its removal.
    if (carriesFormIn(event, request.locale) || event.type === "post.deleted")
      page.histories.set(event.resourceId, {
        form: event.data as Record<string, unknown>,
        life: liveThrough(history.life, history.form, event.type, at),
      });
  }
  for (const [index, item] of [...items.values()].entries()) {
    if (progress && index < progress.items) continue;
    if (!page.take(item)) return { items: index, afterPostId: null };
  }
  if (type === "post" || !request.types.includes("post")) return null;
  // The posts a category, tag or author change reached, a batch at a time.
  let afterPostId = progress?.afterPostId ?? null;
  for (;;) {
    const postIds = await linkedPostsAfter(prisma, type, event.resourceId, afterPostId, POSTS_PER_READ);
    for (const id of postIds) {
      if (!page.take({ type: "post", id, at, slug: null, own: false }))
        return { items: items.size, afterPostId };
      afterPostId = id;
    }
    if (postIds.length < POSTS_PER_READ) return null;
  }
}

/**
 * Whether a post event may change what this key reads of the category, tags and authors the post
 * names (their published-post counts). For a public key not when the post was public neither before
 * nor after: a draft's edits are none of its business, not even as the timing of an upsert.
 */
function countsCanChange(request: FeedRequest, before: FormBefore, event: Event): boolean {
  if (!request.publicOnly || before === "unknown") return true;
  const after = event.data as Record<string, unknown>;
  return (before !== "none" && isLive(before, event.createdAt)) || isLive(after, new Date());
}

async function render(prisma: PrismaClient, request: FeedRequest, page: Page): Promise<FeedEntry[]> {
  const entries: FeedEntry[] = [];
  for (const item of page.implied.values()) {
    const data = await currentSnapshot(prisma, item.type, item.id, request.locale);
    if (data && visible(request, item.type, data)) {
      entries.push({ op: "upsert", type: item.type, id: item.id, data });
      continue;
    }
    const tombstone = { op: "delete" as const, type: item.type, id: item.id, removedAt: item.at };
    if (!request.publicOnly || item.type !== "post") {
      // A post that still exists but is hidden from this key keeps its slug to itself.
      entries.push({ ...tombstone, slug: data ? null : item.slug });
      continue;
    }
    // A public key: only a post it could have read, as public-departures.ts decides.
    const life = item.own ? page.histories.get(item.id)?.life : undefined;
    const allowed = life ? publicTombstone(life) : null;
    if (allowed) entries.push({ ...tombstone, slug: allowed.slug });
  }
  return entries;
}

function resourceOf(type: string): FeedResource | null {
  const resource = type.slice(0, type.indexOf("."));
  return (FEED_RESOURCES as readonly string[]).includes(resource) ? (resource as FeedResource) : null;
}
