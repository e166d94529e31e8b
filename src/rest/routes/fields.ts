// /v1/fields: custom field definitions (no pagination: a workspace has a handful).
import { z } from "zod";
import { FIELD_TYPES } from "../../domain/constants.ts";
import type { RestRoute } from "../route.ts";
import { DeleteResultShape, FieldShape } from "../shapes.ts";
import { graphqlEnum, withRestEnum } from "./conventions.ts";

const FIELDS =
  "id key name description type required localized position createdAt updatedAt options { id value label position createdAt updatedAt }";
const Option = z.object({ value: z.string(), label: z.string() });
const CreateBody = z.object({
  key: z.string(),
  name: z.string(),
  type: z.enum(FIELD_TYPES),
  description: z.string().nullable().optional(),
  required: z.boolean().optional(),
  localized: z.boolean().optional(),
  options: z.array(Option).optional(),
});
const UpdateBody = CreateBody.partial().extend({ position: z.number().int().optional() });

// `localized` shows only on a localized field: a shared one's body stays as it was before locales (issue 56).
const toField = (field: Record<string, unknown>) => {
  if (field.localized !== true) delete field.localized;
  return withRestEnum(field, "type");
};
const toInput = (body: Record<string, unknown>) => ({ ...body, type: graphqlEnum(body.type) });

export const fieldRoutes: RestRoute[] = [
  {
    name: "listFields",
    method: "get",
    cached: true,
    path: "/fields",
    tag: "Fields",
    summary: "List custom field definitions, in position order",
    workspacePathForm: true,
    document: `query List { fields { ${FIELDS} } }`,
    variables: () => ({}),
    reshape: (data) => ({ fields: (data.fields as Record<string, unknown>[]).map(toField) }),
    status: 200,
    response: z.object({ fields: z.array(FieldShape) }),
  },
  {
    name: "getField",
    method: "get",
    cached: true,
    path: "/fields/{identifier}",
    tag: "Fields",
    summary: "Get a field definition by id or key",
    workspacePathForm: true,
    document: `query Get($identifier: String!) { field(identifier: $identifier) { ${FIELDS} } }`,
    variables: ({ params }) => ({ identifier: params.identifier }),
    reshape: (data) => ({ field: toField(data.field as Record<string, unknown>) }),
    status: 200,
    response: z.object({ field: FieldShape }),
  },
  {
    name: "createField",
    method: "post",
    path: "/fields",
    tag: "Fields",
    summary: "Create a field definition (added last)",
    body: CreateBody,
    document: `mutation Create($input: CreateFieldInput!) { createField(input: $input) { ${FIELDS} } }`,
    variables: ({ body }) => ({ input: toInput(body as Record<string, unknown>) }),
    reshape: (data) => ({ field: toField(data.createField as Record<string, unknown>) }),
    status: 201,
    response: z.object({ field: FieldShape }),
  },
  {
    name: "updateField",
    method: "patch",
    path: "/fields/{identifier}",
    tag: "Fields",
    summary: "Update a field definition; refused when it would invalidate values posts store",
    body: UpdateBody,
    document: `mutation Update($identifier: String!, $input: UpdateFieldInput!) {
      updateField(identifier: $identifier, input: $input) { ${FIELDS} }
    }`,
    variables: ({ params, body }) => ({
      identifier: params.identifier,
      input: toInput(body as Record<string, unknown>),
    }),
    reshape: (data) => ({ field: toField(data.updateField as Record<string, unknown>) }),
    status: 200,
    response: z.object({ field: FieldShape }),
  },
  {
    name: "deleteField",
    method: "delete",
    path: "/fields/{identifier}",
    tag: "Fields",
    summary: "Delete a field definition and every post's value for it",
    document: "mutation Delete($identifier: String!) { deleteField(identifier: $identifier) { id } }",
    variables: ({ params }) => ({ identifier: params.identifier }),
    reshape: (data) => data.deleteField,
    status: 200,
    response: DeleteResultShape,
  },
];
