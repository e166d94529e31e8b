// When a WordPress post was published, from a WXR file. `post_date_gmt` is the instant. A draft whose
// date was never set is "floating": WordPress leaves its post_date_gmt at 0000-00-00 00:00:00 (and
// dates it when it is published) and keeps only post_date, the site's local time, in a file that names
// no zone. That local time is read at the UTC offset the site's dated posts show (post_date minus
// post_date_gmt of the dated post nearest in time, so a change of summer time follows), at UTC when no
// post shows one. A post with neither date is dated when the file was exported (the caller's
// `exportedAt`: the latest moment the draft is known to have existed), never 1970: a time the file
// holds, so the same file gives the same date on every run.

type DatedPost = { "wp:post_date"?: unknown; "wp:post_date_gmt"?: unknown };
type Text = (value: unknown) => string;

/** A WXR date ("2024-03-01 10:00:00") read as UTC, in ms; null for "0000-00-00 00:00:00" or junk. */
function wallClock(raw: string): number | null {
  if (!raw || raw.startsWith("0000")) return null;
  const ms = Date.parse(`${raw.replace(" ", "T")}Z`);
  return Number.isNaN(ms) ? null : ms;
}

/** The dates of the posts of one file: `dateOf(post)` is an ISO instant. */
export function wxrDates(posts: readonly DatedPost[], text: Text, exportedAt: Date) {
  const offsets: { local: number; offset: number }[] = [];
  for (const post of posts) {
    const local = wallClock(text(post["wp:post_date"]));
    const gmt = wallClock(text(post["wp:post_date_gmt"]));
    if (local !== null && gmt !== null) offsets.push({ local, offset: local - gmt });
  }
  const offsetAt = (local: number) =>
    offsets.reduce<{ local: number; offset: number } | null>(
      (nearest, entry) =>
        !nearest || Math.abs(entry.local - local) < Math.abs(nearest.local - local) ? entry : nearest,
      null,
    )?.offset ?? 0;
  return {
    dateOf(post: DatedPost): string {
      const gmt = wallClock(text(post["wp:post_date_gmt"]));
      if (gmt !== null) return new Date(gmt).toISOString();
      const local = wallClock(text(post["wp:post_date"]));
      if (local !== null) return new Date(local - offsetAt(local)).toISOString();
      return exportedAt.toISOString();
    },
  };
}
