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
// media-key.ts's.
const RELATIVE_REFERENCE =
  /(^|[="',\s])\/media\/([A-Za-z0-9_-]{1,64}\/[0-9a-f]{32}\.[a-z0-9]{1,5})(?=$|["'\s,?#])/g;

/** `text` with every relative reference to a stored file made absolute (`urlFor(key)`). */
export function absoluteMediaReferences(text: string, urlFor: UrlFor): string;
export function absoluteMediaReferences(text: string | null, urlFor: UrlFor): string | null;
export function absoluteMediaReferences(text: string | null, urlFor: UrlFor): string | null {
  if (!text?.includes(`${LOCAL_MEDIA_PATH}/`)) return text;
  return text.replace(RELATIVE_REFERENCE, (_match, before: string, key: string) => `${before}${urlFor(key)}`);
}
