// The `locale` and `fallback` arguments of category, tag and author reads and writes (issue 56), as the
// post fields spell them.
import type { builder } from "../builder.ts";

type ArgBuilder = Parameters<Parameters<typeof builder.queryFields>[0]>[0]["arg"];

/** A read's locale and fallback chain. */
export function readLocaleArgs(arg: ArgBuilder) {
  return {
    locale: arg({
      type: "LocaleCode",
      required: false,
      description:
        "Serve the name and description of this locale, or of its fallbacks' (the first that has them); a record none of them names is left out",
    }),
    fallback: arg.string({
      required: false,
      description:
        "With `locale`: the locales to fall back to, comma separated, or `none`; default: the locale's fallback chain",
    }),
  };
}

/** The locale and fallback chain of a post's category, tags or authors, overriding the post's own. */
export function nestedLocaleArgs(arg: ArgBuilder) {
  return {
    locale: arg({
      type: "LocaleCode",
      required: false,
      description:
        "Serve the names and descriptions of this locale, or of its fallbacks' (the first that has them), each record's own (the default locale's) last; default: the post's locale and fallbacks",
    }),
    fallback: arg.string({
      required: false,
      description:
        "The locales to fall back to, comma separated, or `none`; default: the locale's fallback chain (with neither argument, the post's)",
    }),
  };
}

/** A write's locale. */
export function writeLocaleArg(arg: ArgBuilder, description: string) {
  return { locale: arg({ type: "LocaleCode", required: false, description }) };
}
