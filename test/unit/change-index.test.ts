// The caches' change index (src/cache/change-index.ts) over the dependency rules
// (src/cache/answer-dependencies.ts): an answer is fresh iff nothing it depends on changed after the
// position it was computed at, as far as every event up to the head goes; where the index cannot know,
// every older answer counts as changed.
import { describe, expect, it } from "vitest";
import {
  ANY_CONTENT,
  ANY_LISTINGS,
  FIELD_DEFINITIONS,
  PUBLIC_CONTENT,
  PUBLIC_LISTINGS,
} from "../../src/cache/answer-dependencies.ts";
import type { LoggedChange } from "../../src/cache/change-index.ts";
import { createChangeIndex, newFreshnessCheck } from "../../src/cache/change-index.ts";

const WS = "ws1";

/** An index over `log` (one workspace's events), counting the reads it makes. */
function indexOver(log: LoggedChange[], options: { maxCatchUp?: number; now?: () => number } = {}) {
  const reads: { after: number; upTo: number }[] = [];
  const index = createChangeIndex({
    ...options,
    readChanges: async (_workspaceId, after, upTo, limit) => {
      reads.push({ after, upTo });
      return log.filter((event) => event.position > after && event.position <= upTo).slice(0, limit);
    },
  });
  return { index, reads };
}

const event = (
  position: number,
  type: string,
  resourceId: string,
  postStatus: string | null = null,
  keepsListings = false,
) => ({
  position,
  type,
  resourceId,
  postStatus,
  keepsListings,
});

describe("the change index", () => {
  it("a draft save changes the post and private answers, never public ones", async () => {
    const { index } = indexOver([event(11, "post.updated", "cdraft", "draft")]);
    await index.coverUpTo(WS, "10");
    await index.coverUpTo(WS, "11");
    expect(index.isFresh(WS, 10, [PUBLIC_CONTENT])).toBe(true);
    expect(index.isFresh(WS, 10, [ANY_CONTENT])).toBe(false);
    expect(index.isFresh(WS, 10, ["cdraft", FIELD_DEFINITIONS])).toBe(false);
    expect(index.isFresh(WS, 10, ["cother", FIELD_DEFINITIONS])).toBe(true);
  });

  it("unpublishing, publishing, deleting and every other resource change public answers", async () => {
    const log = [
      event(11, "post.updated", "cpost", "draft"),
      event(12, "post.unpublished", "cpost", "draft"),
      event(13, "post.deleted", "cgone"),
      event(14, "tag.updated", "ctag"),
      event(15, "field.deleted", "cfield"),
      event(16, "media.deleted", "cmedia"),
    ];
    const { index } = indexOver(log);
    await index.coverUpTo(WS, "10");
    await index.coverUpTo(WS, "16");
    for (const position of [11, 12, 13, 14, 15])
      expect(index.isFresh(WS, position, [PUBLIC_CONTENT])).toBe(false);
    expect(index.isFresh(WS, 16, [PUBLIC_CONTENT])).toBe(true);
    expect(index.isFresh(WS, 14, ["cpost", "ctag"])).toBe(true);
    expect(index.isFresh(WS, 13, ["cpost", "ctag"])).toBe(false);
    expect(index.isFresh(WS, 14, ["cpost", FIELD_DEFINITIONS])).toBe(false);
  });

  it("an edit that keeps every list as it was changes its post, not the listings; any other post write changes them", async () => {
    const log = [
      event(11, "post.updated", "cedited", "published", true),
      event(12, "post.updated", "cretagged", "published", false),
      event(13, "post.updated", "cdraft", "draft", true),
      event(14, "post.updated", "cnewdraft", "draft", false),
    ];
    const { index } = indexOver(log);
    await index.coverUpTo(WS, "10");
    await index.coverUpTo(WS, "14");
    // A page that does not show the edited post is unchanged by the edit; a page that shows it is not.
    expect(index.isFresh(WS, 10, ["cother", PUBLIC_LISTINGS])).toBe(false);
    expect(index.isFresh(WS, 11, ["cother", PUBLIC_LISTINGS])).toBe(false);
    expect(index.isFresh(WS, 12, ["cother", PUBLIC_LISTINGS])).toBe(true);
    expect(index.isFresh(WS, 12, ["cother", PUBLIC_LISTINGS, ANY_LISTINGS])).toBe(false);
    expect(index.isFresh(WS, 13, ["cother", ANY_LISTINGS])).toBe(false);
    expect(index.isFresh(WS, 14, ["cother", ANY_LISTINGS, PUBLIC_LISTINGS])).toBe(true);
    expect(index.isFresh(WS, 12, ["cedited", PUBLIC_LISTINGS])).toBe(true);
    expect(index.isFresh(WS, 10, ["cedited"])).toBe(false);
    // Any other resource's change counts as one of the listings (a tag renamed or deleted, say).
    const tagged = indexOver([event(31, "tag.updated", "ctag")]);
    await tagged.index.coverUpTo(WS, "30");
    await tagged.index.coverUpTo(WS, "31");
    expect(tagged.index.isFresh(WS, 30, [PUBLIC_LISTINGS])).toBe(false);
    expect(tagged.index.isFresh(WS, 30, [ANY_LISTINGS])).toBe(false);
    // A draft's edit that keeps the lists changes neither listing; a new draft changes the private one.
    const drafts = indexOver([
      event(21, "post.updated", "cdraft", "draft", true),
      event(22, "post.created", "cnew", "draft"),
    ]);
    await drafts.index.coverUpTo(WS, "20");
    await drafts.index.coverUpTo(WS, "22");
    expect(drafts.index.isFresh(WS, 20, [PUBLIC_LISTINGS])).toBe(true);
    expect(drafts.index.isFresh(WS, 21, [ANY_LISTINGS])).toBe(false);
    expect(drafts.index.isFresh(WS, 20, [PUBLIC_CONTENT])).toBe(true);
  });

  it("knows nothing before the first head it saw: older answers (another instance's, from Redis) are stale", async () => {
    const { index, reads } = indexOver([]);
    expect(index.isFresh(WS, 5, [PUBLIC_CONTENT])).toBe(false);
    await index.coverUpTo(WS, "20");
    expect(reads).toEqual([]);
    expect(index.isFresh(WS, 19, [PUBLIC_CONTENT])).toBe(false);
    expect(index.isFresh(WS, 20, [PUBLIC_CONTENT])).toBe(true);
  });

  it("reads only the events it is missing, once for concurrent reads of the same head", async () => {
    const { index, reads } = indexOver([event(12, "tag.created", "ctag")]);
    await index.coverUpTo(WS, "10");
    await Promise.all([index.coverUpTo(WS, "12"), index.coverUpTo(WS, "12"), index.coverUpTo(WS, "11")]);
    await index.coverUpTo(WS, "12");
    expect(reads).toEqual([{ after: 10, upTo: 12 }]);
  });

  it("more missing events than it reads, or a long idle gap: every older answer counts as changed", async () => {
    const many = Array.from({ length: 5 }, (_, n) => event(11 + n, "tag.created", `ct${n}`));
    const { index } = indexOver(many, { maxCatchUp: 3 });
    await index.coverUpTo(WS, "10");
    await index.coverUpTo(WS, "15");
    expect(index.isFresh(WS, 10, ["cunrelated"])).toBe(false);
    expect(index.isFresh(WS, 15, ["cunrelated"])).toBe(true);

    let now = 0;
    const idle = indexOver([event(11, "tag.created", "ctag")], { now: () => now });
    await idle.index.coverUpTo(WS, "10");
    now += 11 * 60_000;
    await idle.index.coverUpTo(WS, "11");
    expect(idle.reads).toEqual([]);
    expect(idle.index.isFresh(WS, 10, ["cunrelated"])).toBe(false);
  });

  it("an answer's kept check spares re-reading its keys only until the next change, and never across a reset", async () => {
    const log = [
      event(11, "post.updated", "cdraft", "draft"),
      event(12, "post.updated", "cpost", "published", true),
      ...Array.from({ length: 5 }, (_, n) => event(13 + n, "tag.created", `ct${n}`)),
    ];
    const { index } = indexOver(log, { maxCatchUp: 3 });
    const checked = newFreshnessCheck();
    const page = ["cpost", FIELD_DEFINITIONS, PUBLIC_LISTINGS];
    await index.coverUpTo(WS, "10");
    await index.coverUpTo(WS, "11");
    expect(index.isFresh(WS, 10, page, checked)).toBe(true);
    expect(checked.through).toBe(11);
    // The same head again: fresh, from the check.
    expect(index.isFresh(WS, 10, page, checked)).toBe(true);
    // A change of one of its keys after the check: stale, although it was found fresh before.
    await index.coverUpTo(WS, "12");
    expect(index.isFresh(WS, 10, page, checked)).toBe(false);
    expect(index.isFresh(WS, 10, page, checked)).toBe(false);
    // An answer checked fresh, then a reset (too many missing events): stale, its check not trusted.
    const later = newFreshnessCheck();
    expect(index.isFresh(WS, 12, page, later)).toBe(true);
    await index.coverUpTo(WS, "17");
    expect(index.isFresh(WS, 12, page, later)).toBe(false);
    expect(index.isFresh(WS, 17, page, newFreshnessCheck())).toBe(true);
  });

  it("takes a writer's events with no statement when it knows every event up to the head before them", async () => {
    const { index, reads } = indexOver([]);
    await index.coverUpTo(WS, "10");
    const checked = newFreshnessCheck();
    expect(index.isFresh(WS, 10, ["cpost"], checked)).toBe(true);
    index.takeAppended(WS, 10, [event(12, "post.updated", "cpost", "published", true)]);
    await index.coverUpTo(WS, "12");
    expect(reads).toEqual([]);
    expect(index.isFresh(WS, 10, ["cpost"], checked)).toBe(false);
    expect(index.isFresh(WS, 10, ["cother"])).toBe(true);
    expect(index.isFresh(WS, 12, ["cpost"])).toBe(true);
  });

  it("leaves a writer's events to the next catch-up when it missed some before them", async () => {
    const log = [
      event(11, "post.updated", "cother", "published", true),
      event(12, "post.updated", "cpost", "published", true),
    ];
    const { index, reads } = indexOver(log);
    await index.coverUpTo(WS, "10");
    // The write of 12 reports first; 11's writer has not (its news come later, or from another process).
    index.takeAppended(WS, 11, [log[1] as LoggedChange]);
    expect(index.isFresh(WS, 10, ["cpost"])).toBe(true);
    await index.coverUpTo(WS, "12");
    expect(reads).toEqual([{ after: 10, upTo: 12 }]);
    expect(index.isFresh(WS, 10, ["cother"])).toBe(false);
    expect(index.isFresh(WS, 10, ["cpost"])).toBe(false);
    // A report of what a catch-up already read changes nothing, and positions never move back.
    index.takeAppended(WS, 10, [log[0] as LoggedChange]);
    expect(index.isFresh(WS, 11, ["cpost"])).toBe(false);
    expect(index.isFresh(WS, 12, ["cpost", "cother"])).toBe(true);
  });

  it("ignores a writer's events for a workspace it has not seen yet", async () => {
    const { index, reads } = indexOver([]);
    index.takeAppended(WS, 0, [event(1, "tag.created", "ctag")]);
    await index.coverUpTo(WS, "1");
    expect(reads).toEqual([]);
    expect(index.isFresh(WS, 0, ["cunrelated"])).toBe(false);
    expect(index.isFresh(WS, 1, ["cunrelated"])).toBe(true);
  });
});
