// Stored HTML is safe to render as is: no scripts, no event handlers, no javascript: URLs.
//
// sanitize-html (with postcss and htmlparser2, about a hundred files) is loaded on the first write that
// needs it rather than with the server, whose start it would slow for every start.
import { createRequire } from "node:module";
import type SanitizeHtml from "sanitize-html";

const require = createRequire(import.meta.url);

const sanitizerOptions = (sanitize: typeof SanitizeHtml): SanitizeHtml.IOptions => ({
  allowedTags: [
    ...sanitize.defaults.allowedTags,
    "img",
    "figure",
    "figcaption",
    "picture",
    "source",
    "video",
    "audio",
    "iframe",
    "h1",
    "h2",
    "del",
    "ins",
    "sup",
    "sub",
  ],
  allowedAttributes: {
    ...sanitize.defaults.allowedAttributes,
    "*": ["id", "class", "title", "lang", "dir"],
    a: ["href", "name", "target", "rel"],
    img: ["src", "srcset", "sizes", "alt", "title", "width", "height", "loading"],
    source: ["src", "srcset", "type", "media", "sizes"],
    video: ["src", "poster", "controls", "width", "height", "loop", "muted", "playsinline"],
    audio: ["src", "controls", "loop", "muted"],
    iframe: ["src", "width", "height", "allow", "allowfullscreen", "frameborder", "title"],
    td: ["colspan", "rowspan"],
    th: ["colspan", "rowspan", "scope"],
  },
  allowedSchemes: ["http", "https", "mailto", "tel"],
  allowedSchemesByTag: { img: ["http", "https", "data"] },
  allowProtocolRelative: true,
  // Embeds only from well-known video hosts; an arbitrary iframe could frame anything.
  allowedIframeHostnames: ["www.youtube.com", "www.youtube-nocookie.com", "player.vimeo.com"],
});

let sanitizer: ((html: string) => string) | undefined;

function loadSanitizer(): (html: string) => string {
  const sanitize = require("sanitize-html") as typeof SanitizeHtml;
  const options = sanitizerOptions(sanitize);
  return (html) => sanitize(html, options);
}

export function sanitizeHtml(html: string): string {
  sanitizer ??= loadSanitizer();
  return sanitizer(html);
}
