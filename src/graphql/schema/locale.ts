// A workspace's locales (issue 56): the languages its content may be written in, each with its
// fallback chain, one of them the default. Reading them needs any key; writing them `locales:write`.
import { createLocale, deleteLocale, updateLocale } from "../../content/locales/locales.ts";
import { builder } from "../builder.ts";
import { readBack } from "../read-back.ts";
import { DeleteResult } from "./enums.ts";

builder.prismaObject("Locale", {
  description: "A language of the workspace's content",
  fields: (t) => ({
    id: t.exposeID("id"),
    code: t.expose("code", { type: "LocaleCode", description: "Canonical BCP 47 (en-US)" }),
    name: t.exposeString("name"),
    isDefault: t.exposeBoolean("isDefault", {
      description: "The locale served when none is asked for; exactly one per workspace",
    }),
    fallback: t.expose("fallback", {
      type: ["LocaleCode"],
      description: "The locales to fall back to, in order (acyclic across the workspace, at most 5)",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const CreateLocaleInput = builder.inputType("CreateLocaleInput", {
  fields: (t) => ({
    code: t.field({ type: "LocaleCode", required: true }),
    name: t.string({ required: false, description: "Default: the language's English name (de: German)" }),
    fallback: t.field({ type: ["LocaleCode"], required: false }),
    isDefault: t.boolean({
      required: false,
      description: "true: becomes the default instead of the current one",
    }),
  }),
});

const UpdateLocaleInput = builder.inputType("UpdateLocaleInput", {
  fields: (t) => ({
    name: t.string({ required: false }),
    fallback: t.field({
      type: ["LocaleCode"],
      required: false,
      description: "Replaces the chain; [] for none",
    }),
    isDefault: t.boolean({
      required: false,
      description: "true: becomes the default and the current default no longer is (one transaction)",
    }),
  }),
});

builder.queryFields((t) => ({
  locales: t.prismaField({
    type: ["Locale"],
    description: "The workspace's locales, the default first, then by code",
    resolve: (query, _root, _args, ctx) =>
      ctx.prisma.locale.findMany({
        ...query,
        where: { workspaceId: ctx.caller.workspaceId },
        orderBy: [{ isDefault: "desc" }, { code: "asc" }],
      }),
  }),
}));

builder.mutationFields((t) => ({
  createLocale: t.prismaField({
    type: "Locale",
    args: { input: t.arg({ type: CreateLocaleInput, required: true }) },
    resolve: async (query, _root, { input }, ctx) => {
      const id = await createLocale(ctx.prisma, ctx.caller.workspaceId, input);
      return readBack(ctx.prisma.locale.findUnique({ ...query, where: { id } }), "Locale", input.code);
    },
  }),
  updateLocale: t.prismaField({
    type: "Locale",
    args: {
      code: t.arg({ type: "LocaleCode", required: true }),
      input: t.arg({ type: UpdateLocaleInput, required: true }),
    },
    resolve: async (query, _root, { code, input }, ctx) => {
      const id = await updateLocale(ctx.prisma, ctx.caller.workspaceId, code, input);
      return readBack(ctx.prisma.locale.findUnique({ ...query, where: { id } }), "Locale", code);
    },
  }),
  deleteLocale: t.field({
    type: DeleteResult,
    description:
      "Removes a locale: never the default, nor one another locale falls back to (CONFLICT naming them), nor one holding translations (of posts, categories, tags or authors) unless `force` (then they are removed with it, each recorded)",
    args: {
      code: t.arg({ type: "LocaleCode", required: true }),
      force: t.arg.boolean({ required: false, defaultValue: false }),
    },
    resolve: async (_root, { code, force }, ctx) => ({
      id: await deleteLocale(ctx.prisma, ctx.caller.workspaceId, code, { force: force === true }),
    }),
  }),
}));
