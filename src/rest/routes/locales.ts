// /v1/locales: the workspace's locales (issue 56), read with any key, written with locales:write.
// Addressed by code (`/v1/locales/en-US`, or `en-us`: the code is canonicalised). No pagination: a
// workspace has a handful.
import { z } from "zod";
import { canonicalLocaleCode, localeCodeProblem } from "../../domain/locale-codes.ts";
import { validationError } from "../errors.ts";
import { RestInputError } from "../rest-input-error.ts";
import type { RestRoute } from "../route.ts";
import { DeleteResultShape, LocaleShape } from "../shapes.ts";

const FIELDS = "id code name isDefault fallback createdAt updatedAt";

/** A locale code in a body: refused here, naming its place (`code`, `fallback.1`), when malformed. */
const LocaleCode = z.string().superRefine((value, ctx) => {
  if (canonicalLocaleCode(value) === null)
    ctx.addIssue({ code: "custom", message: localeCodeProblem(value) });
});
const UpdateBody = z.object({
  name: z.string().optional(),
  fallback: z.array(LocaleCode).optional().describe("Replaces the chain; [] for none"),
  isDefault: z
    .boolean()
    .optional()
    .describe("true: becomes the default and the current default no longer is"),
});
const CreateBody = z.object({ code: LocaleCode, ...UpdateBody.shape });

/** The `{code}` path parameter, canonical; a malformed one is a 400 naming `code`. */
function pathCode(params: Record<string, string>): string {
  const code = String(params.code);
  if (canonicalLocaleCode(code) === null) {
    const refusal = validationError("Invalid locale code", [
      { field: "code", message: localeCodeProblem(code) },
    ]);
    throw new RestInputError(refusal.status, refusal.body);
  }
  return code;
}

export const localeRoutes: RestRoute[] = [
  {
    name: "listLocales",
    method: "get",
    cached: true,
    path: "/locales",
    tag: "Locales",
    summary: "List the workspace's locales, the default first, then by code",
    workspacePathForm: true,
    document: `query List { locales { ${FIELDS} } }`,
    variables: () => ({}),
    reshape: (data) => ({ locales: data.locales }),
    status: 200,
    response: z.object({ locales: z.array(LocaleShape) }),
  },
  {
    name: "createLocale",
    method: "post",
    path: "/locales",
    tag: "Locales",
    summary: "Add a locale (its name defaults to the language's English name)",
    body: CreateBody,
    document: `mutation Create($input: CreateLocaleInput!) { createLocale(input: $input) { ${FIELDS} } }`,
    variables: ({ body }) => ({ input: body }),
    reshape: (data) => ({ locale: data.createLocale }),
    status: 201,
    errors: { 409: "A locale with this code already exists" },
    response: z.object({ locale: LocaleShape }),
  },
  {
    name: "updateLocale",
    method: "patch",
    path: "/locales/{code}",
    tag: "Locales",
    summary: "Rename a locale, replace its fallback chain or make it the default",
    body: UpdateBody,
    document: `mutation Update($code: LocaleCode!, $input: UpdateLocaleInput!) {
      updateLocale(code: $code, input: $input) { ${FIELDS} }
    }`,
    variables: ({ params, body }) => ({ code: pathCode(params), input: body }),
    reshape: (data) => ({ locale: data.updateLocale }),
    status: 200,
    errors: { 409: "Not expected: a locale's code never changes, and default switches take turns" },
    response: z.object({ locale: LocaleShape }),
  },
  {
    name: "deleteLocale",
    method: "delete",
    path: "/locales/{code}",
    tag: "Locales",
    summary:
      "Remove a locale: never the default, nor one another locale falls back to, nor one holding translations (of posts, categories, tags or authors) unless force=true",
    query: [
      {
        name: "force",
        kind: "enum",
        values: ["true", "false"],
        description:
          "true: also remove the locale's translations of posts, categories, tags and authors (each recorded as its own removal); without it, a locale holding any is a 409",
      },
    ],
    document:
      "mutation Delete($code: LocaleCode!, $force: Boolean) { deleteLocale(code: $code, force: $force) { id } }",
    variables: ({ params, query }) => ({ code: pathCode(params), force: query.force === "true" }),
    reshape: (data) => data.deleteLocale,
    status: 200,
    errors: {
      409: "The default locale, a locale in another's fallback chain, or one holding translations (without force=true)",
    },
    response: DeleteResultShape,
  },
];
