// How a body, a cover or an author image names a file this service stores. Without PUBLIC_URL the
// service's own URL is http://localhost:<PORT> of the process that builds it, and the process that
// imports (the CLI, PORT unset: 3000) is not the one that serves (issue 54, item 9). So an import stores
// such a reference relative, `/media/<key>`, and every read makes it absolute against the base of the
// process answering (the same rule as every other media URL it hands out: transform-url.ts). With
// PUBLIC_URL, or a bucket's own URL, the absolute URL does not depend on the process and is stored as is.
import type { Config } from "../config.ts";
import { LOCAL_MEDIA_PATH } from "./local-storage.ts";
import { serviceBaseUrl } from "./transform-url.ts";

type UrlFor = (key: string) => string;

/** What an imported record stores for the file at `key`. */
export function storedMediaReference(
  config: Pick<Config, "publicUrl" | "port">,
  urlFor: UrlFor,
  key: string,
) {
  const url = urlFor(key);
  const relative = `${LOCAL_MEDIA_PATH}/${key}`;
  return !config.publicUrl && url === `${serviceBaseUrl(config)}${relative}` ? relative : url;
}

// A relative reference to a stored file, as storedMediaReference writes it: at the start of the text
// (a cover, an author image) or of an HTML attribute's value or a srcset candidate. The key's shape is
// media-key.ts's. In JSON text an attribute's closing quote is escaped (`src=\"/media/…\"`), hence
// the backslash among what may follow.
const RELATIVE_REFERENCE =
  /(^|[="',\s])\/media\/([A-Za-z0-9_-]{1,64}\/[0-9a-f]{32}\.[a-z0-9]{1,5})(?=$|["'\s,?#\\])/g;

/** `text` with every relative reference to a stored file made absolute (`urlFor(key)`). */
export function absoluteMediaReferences(text: string, urlFor: UrlFor): string;
export function absoluteMediaReferences(text: string | null, urlFor: UrlFor): string | null;
export function absoluteMediaReferences(text: string | null, urlFor: UrlFor): string | null {
  if (!text?.includes(`${LOCAL_MEDIA_PATH}/`)) return text;
  return text.replace(RELATIVE_REFERENCE, (_match, before: string, key: string) => `${before}${urlFor(key)}`);
}

/**
 * A JSON value (an event's data, a change feed entry, a revision's snapshot) with every string in it
 * made absolute as absoluteMediaReferences makes a body: these carry records as they are stored.
 */
export function absoluteMediaReferencesIn(value: unknown, urlFor: UrlFor): unknown {
  if (typeof value === "string") return absoluteMediaReferences(value, urlFor);
  if (Array.isArray(value)) return value.map((item) => absoluteMediaReferencesIn(item, urlFor));
  if (value === null || typeof value !== "object" || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => [name, absoluteMediaReferencesIn(item, urlFor)]),
  );
}

/**
 * Serialized JSON (a webhook's body, built as text from the stored event: webhook-delivery-store.ts)
 * with its relative references made absolute, without parsing it: the URL is escaped as a JSON string's
 * content, so the text stays the JSON it was.
 */
export function absoluteMediaReferencesInJsonText(json: string, urlFor: UrlFor): string {
  return absoluteMediaReferences(json, (key) => JSON.stringify(urlFor(key)).slice(1, -1));
}
