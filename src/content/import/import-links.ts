// What an import learns as it goes and applies to every later record: the new id of each source record
// (revisions' snapshots name their category, tags, authors and post by id) and the new URL of each
// media file (bodies, covers and author images point at the source's media host). Kept in memory for
// one run; a resumed run learns the same again from the records it skips (import-batch.ts).

/** A URL in text: up to a quote, a space or markup that ends it. */
const URL_IN_TEXT = /https?:\/\/[^\s"'<>()\\]+/g;
/** An id as JSON spells it. */
const QUOTED_ID = /"([A-Za-z0-9_-]{8,64})"/g;

export class ImportLinks {
  private readonly ids = new Map<string, string>();
  private readonly urls = new Map<string, string>();
  /** A dry run's would-be records (`kind:slug`): later records may reference them as if written. */
  private readonly planned = new Set<string>();

  /** A dry run's would-be default locale (a locale record that would become it). */
  private plannedDefault: string | null = null;

  planDefaultLocale(code: string): void {
    this.plannedDefault = code;
  }

  get plannedDefaultLocale(): string | null {
    return this.plannedDefault;
  }

  plan(kind: string, slug: string): void {
    this.planned.add(`${kind}:${slug}`);
  }

  isPlanned(kind: string, slug: string): boolean {
    return this.planned.has(`${kind}:${slug}`);
  }

  rememberId(sourceId: string, targetId: string): void {
    this.ids.set(sourceId, targetId);
  }

  rememberUrl(sourceUrl: string, targetUrl: string): void {
    if (sourceUrl !== targetUrl) this.urls.set(sourceUrl, targetUrl);
  }

  /** Every known source media URL in `text`, replaced by its new URL. */
  rewriteUrls(text: string): string;
  rewriteUrls(text: string | null): string | null;
  rewriteUrls(text: string | null): string | null {
    if (text === null || this.urls.size === 0) return text;
    return text.replace(URL_IN_TEXT, (url) => this.urls.get(url) ?? url);
  }

  /** A revision's snapshot with its ids and media URLs those of the target. */
  rewriteSnapshot(snapshot: Record<string, unknown>): Record<string, unknown> {
    const json = this.rewriteUrls(JSON.stringify(snapshot)).replace(QUOTED_ID, (quoted, id: string) => {
      const target = this.ids.get(id);
      return target ? `"${target}"` : quoted;
    });
    return JSON.parse(json) as Record<string, unknown>;
  }
}
