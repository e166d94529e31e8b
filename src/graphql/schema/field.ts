// Custom field definitions (Field, FieldOption) and the typed value entries of posts.

import { createField, deleteField, findFieldId, updateField } from "../../content/taxonomy/custom-fields.ts";
import { builder } from "../builder.ts";
import type { FieldDefinitionSummary } from "../loaders.ts";
import { readBack } from "../read-back.ts";
import { DeleteResult } from "./enums.ts";

export const FieldTypeEnum = builder.enumType("FieldType", {
  values: {
    TEXT: { value: "text" },
    NUMBER: { value: "number" },
    BOOLEAN: { value: "boolean" },
    DATE: { value: "date" },
    RICHTEXT: { value: "richtext" },
    SELECT: { value: "select" },
    MULTISELECT: { value: "multiselect" },
  } as const,
});

builder.prismaObject("FieldOption", {
  fields: (t) => ({
    id: t.exposeID("id"),
    value: t.exposeString("value"),
    label: t.exposeString("label"),
    position: t.exposeInt("position"),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

builder.prismaObject("Field", {
  fields: (t) => ({
    id: t.exposeID("id"),
    key: t.exposeString("key"),
    name: t.exposeString("name"),
    description: t.exposeString("description", { nullable: true }),
    type: t.expose("type", { type: FieldTypeEnum }),
    required: t.exposeBoolean("required"),
    localized: t.exposeBoolean("localized", {
      description:
        "Whether each translation of a post has its own value (written and read with `locale`); otherwise one value is shared by all",
    }),
    position: t.exposeInt("position"),
    options: t.relation("options", { query: { orderBy: { position: "asc" } } }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

export const PostFieldEntry = builder
  .objectRef<{ definition: FieldDefinitionSummary; value: unknown }>("PostFieldEntry")
  .implement({
    description: "One custom field value of a post, with typed accessors",
    fields: (t) => ({
      key: t.string({ resolve: (entry) => entry.definition.key }),
      type: t.field({ type: FieldTypeEnum, resolve: (entry) => entry.definition.type }),
      value: t.field({ type: "JSON", nullable: true, resolve: (entry) => entry.value }),
      text: t.string({
        nullable: true,
        description: "For text, richtext, date and select fields",
        resolve: (entry) => (typeof entry.value === "string" ? entry.value : null),
      }),
      number: t.float({
        nullable: true,
        resolve: (entry) => (typeof entry.value === "number" ? entry.value : null),
      }),
      boolean: t.boolean({
        nullable: true,
        resolve: (entry) => (typeof entry.value === "boolean" ? entry.value : null),
      }),
      values: t.stringList({
        nullable: true,
        description: "For multiselect fields",
        resolve: (entry) => (Array.isArray(entry.value) ? (entry.value as string[]) : null),
      }),
    }),
  });

const FieldOptionInput = builder.inputType("FieldOptionInput", {
  fields: (t) => ({ value: t.string({ required: true }), label: t.string({ required: true }) }),
});

const CreateFieldInput = builder.inputType("CreateFieldInput", {
  fields: (t) => ({
    key: t.string({ required: true }),
    name: t.string({ required: true }),
    type: t.field({ type: FieldTypeEnum, required: true }),
    description: t.string({ required: false }),
    required: t.boolean({ required: false }),
    localized: t.boolean({
      required: false,
      description: "Each translation of a post has its own value (default false: one shared value)",
    }),
    options: t.field({
      type: [FieldOptionInput],
      required: false,
      description: "Required for select and multiselect",
    }),
  }),
});

const UpdateFieldInput = builder.inputType("UpdateFieldInput", {
  fields: (t) => ({
    key: t.string({ required: false }),
    name: t.string({ required: false }),
    type: t.field({ type: FieldTypeEnum, required: false }),
    description: t.string({ required: false }),
    required: t.boolean({ required: false }),
    localized: t.boolean({
      required: false,
      description:
        "Turning it on gives every translation the shared value as its own; turning it off keeps the default locale's value as the shared one and drops the other translations' values",
    }),
    position: t.int({
      required: false,
      description: "Moves the field to this place in the list (0 = first)",
    }),
    options: t.field({ type: [FieldOptionInput], required: false, description: "Replaces the whole list" }),
  }),
});

builder.queryFields((t) => ({
  fields: t.prismaField({
    type: ["Field"],
    description: "The workspace's custom field definitions, in position order",
    resolve: (query, _root, _args, ctx) =>
      ctx.prisma.field.findMany({
        ...query,
        where: { workspaceId: ctx.caller.workspaceId },
        orderBy: [{ position: "asc" }, { createdAt: "asc" }],
      }),
  }),
  field: t.prismaField({
    type: "Field",
    description: "A field definition by id or key",
    args: { identifier: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const id = await findFieldId(ctx.prisma, ctx.caller.workspaceId, args.identifier);
      return readBack(ctx.prisma.field.findUnique({ ...query, where: { id } }), "Field", args.identifier);
    },
  }),
}));

builder.mutationFields((t) => ({
  createField: t.prismaField({
    type: "Field",
    args: { input: t.arg({ type: CreateFieldInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const id = await createField(ctx.prisma, ctx.caller.workspaceId, input);
      return readBack(ctx.prisma.field.findUnique({ ...query, where: { id } }), "Field", input.key);
    },
  }),
  updateField: t.prismaField({
    type: "Field",
    args: {
      identifier: t.arg.string({ required: true }),
      input: t.arg({ type: UpdateFieldInput, required: true }),
    },
    resolve: async (query, _root, { identifier, input }, ctx) => {
      const id = await updateField(ctx.prisma, ctx.caller.workspaceId, identifier, input);
      return readBack(ctx.prisma.field.findUnique({ ...query, where: { id } }), "Field", identifier);
    },
  }),
  deleteField: t.field({
    type: DeleteResult,
    description: "Deletes the definition and every post's value for it",
    args: { identifier: t.arg.string({ required: true }) },
    resolve: async (_root, { identifier }, ctx) => {
      return { id: await deleteField(ctx.prisma, ctx.caller.workspaceId, identifier) };
    },
  }),
}));
