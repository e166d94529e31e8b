// Query parameters are declared once per route; the same declaration parses requests (with a
// `details` entry per bad parameter) and describes them in the OpenAPI document.
import type { FieldProblem } from "../domain/errors.ts";

export type QueryParam =
  | { name: string; kind: "integer"; min: number; max?: number; default?: number; description: string }
  | { name: string; kind: "enum"; values: readonly string[]; default?: string; description: string }
  | { name: string; kind: "list"; description: string }
  | { name: string; kind: "string"; maxLength?: number; description: string };

/** Largest integer parameter: GraphQL's Int is a signed 32-bit integer. */
export const MAX_INTEGER = 2_147_483_647;

export function parseQuery(
  declared: readonly QueryParam[],
  raw: Record<string, unknown>,
): { values: Record<string, unknown>; problems: FieldProblem[] } {
  const values: Record<string, unknown> = {};
  const problems: FieldProblem[] = [];
  for (const param of declared) {
    const value = raw[param.name];
    if (value === undefined || value === "") {
      if ("default" in param && param.default !== undefined) values[param.name] = param.default;
      continue;
    }
    if (param.kind === "list") {
      values[param.name] = toList(value);
      continue;
    }
    if (typeof value !== "string") {
      problems.push({ field: param.name, message: "Must be given once" });
      continue;
    }
    const problem = parseScalar(param, value, values);
    if (problem) problems.push({ field: param.name, message: problem });
  }
  return { values, problems };
}

function parseScalar(
  param: Exclude<QueryParam, { kind: "list" }>,
  value: string,
  values: Record<string, unknown>,
) {
  switch (param.kind) {
    case "integer": {
      if (!/^-?\d+$/.test(value)) return "Expected number, received string";
      const number = Number(value);
      const max = param.max ?? MAX_INTEGER;
      if (number < param.min) return `Must be at least ${param.min}`;
      if (number > max) return `Must be at most ${max}`;
      values[param.name] = number;
      return null;
    }
    case "enum":
      if (!param.values.includes(value)) return `Must be one of: ${param.values.join(", ")}`;
      values[param.name] = value;
      return null;
    case "string":
      if (param.maxLength && value.length > param.maxLength)
        return `Must be at most ${param.maxLength} characters`;
      values[param.name] = value;
      return null;
  }
}

/** `a,b` and `x=a&x=b` (and `x[]=a`) alike. */
function toList(value: unknown): string[] {
  const parts = (Array.isArray(value) ? value : [value]).flatMap((v) =>
    typeof v === "string" ? v.split(",") : [],
  );
  return [...new Set(parts.map((p) => p.trim()).filter(Boolean))];
}

export const LIMIT_PARAM: QueryParam = {
  name: "limit",
  kind: "integer",
  min: 1,
  max: 100,
  default: 10,
  description: "Items per page, 1 to 100",
};
export const PAGE_PARAM: QueryParam = {
  name: "page",
  kind: "integer",
  min: 1,
  default: 1,
  description: "Page number, starting at 1",
};
