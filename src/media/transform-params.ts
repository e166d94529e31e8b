// The image transform a media URL asks for, in the query-string names Contentful's Images API and imgix
// share (`w`, `h`, `fit`, `fm`, `q`): the names frontend tools and `next/image` loaders already build.
// Only widths, heights and qualities from configured lists are accepted, so the number of distinct
// variants of one original (each computed and stored once) stays small.
import { type FieldProblem, InvalidInputError } from "../domain/errors.ts";

export const TRANSFORM_FITS = ["cover", "contain", "inside"] as const;
export type TransformFit = (typeof TRANSFORM_FITS)[number];

/** Formats a client may ask for; `auto` picks the best one the request's Accept header names. */
export const REQUESTABLE_FORMATS = ["webp", "avif", "jpeg", "png", "auto"] as const;
export type RequestableFormat = (typeof REQUESTABLE_FORMATS)[number];

/** Formats a variant is written in: the requestable ones, and GIF (an animated GIF kept animated). */
export type OutputFormat = "webp" | "avif" | "jpeg" | "png" | "gif";

/** The parameters of a transform URL, validated; the format may still be `auto` or unset. */
export interface ImageTransform {
  width?: number | undefined;
  height?: number | undefined;
  fit: TransformFit;
  format?: RequestableFormat | undefined;
  quality: number;
}

/** A transform whose output format is settled (see chooseOutputFormat). */
export interface ResolvedTransform extends Omit<ImageTransform, "format"> {
  format: OutputFormat;
}

/** The configured lists a transform must keep to (config.media.transforms). */
export interface TransformRules {
  widths: readonly number[];
  qualities: readonly number[];
  defaultQuality: number;
}

/** The query parameters that make a media URL a transform; any one of them is enough. */
export const TRANSFORM_PARAMETERS = ["w", "h", "fit", "fm", "q"] as const;

export function hasTransformParameters(search: URLSearchParams): boolean {
  return TRANSFORM_PARAMETERS.some((name) => search.has(name));
}

/** The transform `search` names; throws InvalidInputError naming every parameter at fault. */
export function parseTransform(search: URLSearchParams, rules: TransformRules): ImageTransform {
  const problems: FieldProblem[] = [];
  const single = (name: string): string | undefined => {
    const values = search.getAll(name);
    if (values.length > 1) problems.push({ field: name, message: "must be given once" });
    return values[0];
  };
  const fromList = (name: string, list: readonly number[], what: string): number | undefined => {
    const text = single(name);
    if (text === undefined) return undefined;
    const value = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
    if (list.includes(value)) return value;
    problems.push({ field: name, message: `must be one of the configured ${what}: ${list.join(", ")}` });
    return undefined;
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[]): T | undefined => {
    const text = single(name);
    if (text === undefined) return undefined;
    if ((allowed as readonly string[]).includes(text)) return text as T;
    problems.push({ field: name, message: `must be one of ${allowed.join(", ")}` });
    return undefined;
  };

  const transform: ImageTransform = {
    width: fromList("w", rules.widths, "widths"),
    height: fromList("h", rules.widths, "sizes"),
    fit: oneOf("fit", TRANSFORM_FITS) ?? "inside",
    format: oneOf("fm", REQUESTABLE_FORMATS),
    quality: fromList("q", rules.qualities, "qualities") ?? rules.defaultQuality,
  };
  if (transform.fit !== "inside" && (transform.width === undefined || transform.height === undefined))
    problems.push({ field: "fit", message: `fit=${transform.fit} needs both w and h` });
  if (problems.length) throw new InvalidInputError("Invalid image transform", problems);
  return transform;
}

/** The query string of a transform URL, in a stable order so equal transforms make equal URLs. */
export function transformQuery(transform: Partial<ImageTransform>): string {
  const search = new URLSearchParams();
  if (transform.width !== undefined) search.set("w", String(transform.width));
  if (transform.height !== undefined) search.set("h", String(transform.height));
  if (transform.fit !== undefined && transform.fit !== "inside") search.set("fit", transform.fit);
  if (transform.format !== undefined) search.set("fm", transform.format);
  if (transform.quality !== undefined) search.set("q", String(transform.quality));
  return search.toString();
}
