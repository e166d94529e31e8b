// The GraphQL side of image transforms: `Media.url(transform:)` and `Media.srcSet(widths:, format:)`. The
// URLs they build are the REST-free GET /media/<key>?w=…&fm=… (src/media/serve-media-transforms.ts), and
// their arguments are checked against the same configured lists, so every URL handed out is one the
// service answers.
import { InvalidInputError } from "../../domain/errors.ts";
import {
  type ImageTransform,
  parseTransform,
  type RequestableFormat,
  type TransformFit,
  type TransformRules,
  transformQuery,
} from "../../media/transform-params.ts";
import { builder } from "../builder.ts";

export const MediaFitEnum = builder.enumType("MediaFit", {
  description: "How a transformed image fills the box `width` × `height` names (never enlarged)",
  values: {
    COVER: { value: "cover", description: "Fills the box, cropping what overflows (needs width and height)" },
    CONTAIN: {
      value: "contain",
      description: "Fits inside the box and pads the rest (needs width and height)",
    },
    INSIDE: { value: "inside", description: "Fits inside the box, keeping its proportions (the default)" },
  } as const,
});

export const MediaFormatEnum = builder.enumType("MediaFormat", {
  values: {
    WEBP: { value: "webp" },
    AVIF: { value: "avif" },
    JPEG: { value: "jpeg" },
    PNG: { value: "png" },
    AUTO: { value: "auto", description: "AVIF or WebP as the browser's Accept header allows (Vary: Accept)" },
  } as const,
});

export const MediaTransformInput = builder.inputType("MediaTransform", {
  description:
    "An image transform; width, height and quality must be among the configured values (MEDIA_TRANSFORM_WIDTHS, MEDIA_TRANSFORM_QUALITIES)",
  fields: (t) => ({
    width: t.int({ required: false }),
    height: t.int({ required: false }),
    fit: t.field({ type: MediaFitEnum, required: false }),
    format: t.field({ type: MediaFormatEnum, required: false }),
    quality: t.int({ required: false, description: "1–100, among MEDIA_TRANSFORM_QUALITIES" }),
  }),
});

/** The transform arguments as GraphQL hands them over. */
export interface TransformArgument {
  width?: number | null | undefined;
  height?: number | null | undefined;
  fit?: TransformFit | null | undefined;
  format?: RequestableFormat | null | undefined;
  quality?: number | null | undefined;
}

/** The argument names of the URL parameters, so a refusal names the field the client sent. */
const ARGUMENT_OF_PARAMETER: Record<string, string> = {
  w: "width",
  h: "height",
  fit: "fit",
  fm: "format",
  q: "quality",
};

/**
 * The transform `argument` names, checked by the rules the URL is checked by. Only what the argument
 * names is kept (an unset quality stays unset, so the URL stays short and uses the default).
 */
export function checkedTransform(
  argument: TransformArgument,
  rules: TransformRules,
  path: string,
): Partial<ImageTransform> {
  const named: Partial<ImageTransform> = {
    width: argument.width ?? undefined,
    height: argument.height ?? undefined,
    fit: argument.fit ?? undefined,
    format: argument.format ?? undefined,
    quality: argument.quality ?? undefined,
  };
  try {
    parseTransform(new URLSearchParams(transformQuery(named)), rules);
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    throw new InvalidInputError(
      error.message,
      error.details.map((problem) => ({
        ...problem,
        field: `${path}.${ARGUMENT_OF_PARAMETER[problem.field] ?? problem.field}`,
      })),
    );
  }
  return named;
}

/** `widths`, each checked against the configured list; throws naming every one at fault. */
export function checkedWidths(widths: readonly number[], rules: TransformRules): readonly number[] {
  const problems = widths.flatMap((width, index) =>
    rules.widths.includes(width)
      ? []
      : [
          {
            field: `widths.${index}`,
            message: `must be one of the configured widths: ${rules.widths.join(", ")}`,
          },
        ],
  );
  if (problems.length) throw new InvalidInputError("Invalid srcSet widths", problems);
  return widths;
}
