// Media: type, queries (list with filters, by id) and mutations (upload, update, delete).

import { createMedia, deleteMedia, updateMedia } from "../../content/media.ts";
import { isTransformable, serviceBaseUrl, srcSet, transformUrl } from "../../media/transform-url.ts";
import { builder } from "../builder.ts";
import { notFoundError } from "../errors.ts";
import { listPage } from "../list-page.ts";
import { pageArgs, pageListComplexity, pageType } from "../pagination.ts";
import { readBack } from "../read-back.ts";
import { DeleteResult, SortOrderEnum } from "./enums.ts";
import { checkedTransform, checkedWidths, MediaFormatEnum, MediaTransformInput } from "./media-transform.ts";

const MediaTypeEnum = builder.enumType("MediaType", {
  values: {
    IMAGE: { value: "image" },
    VIDEO: { value: "video" },
    AUDIO: { value: "audio" },
    DOCUMENT: { value: "document" },
  } as const,
});

export const Media = builder.prismaObject("Media", {
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    url: t.string({
      description:
        "Absolute URL of the file; with `transform`, of the image resized or converted (files that are not JPEG, PNG, GIF, WebP or AVIF images keep their URL)",
      select: { storageKey: true },
      args: { transform: t.arg({ type: MediaTransformInput, required: false }) },
      resolve: (media, args, ctx) => {
        const { config, mediaStorage } = ctx.services;
        if (!args.transform) return mediaStorage.urlFor(media.storageKey);
        const transform = checkedTransform(args.transform, config.media.transforms, "transform");
        if (!isTransformable(media.storageKey)) return mediaStorage.urlFor(media.storageKey);
        return transformUrl(serviceBaseUrl(config), media.storageKey, transform);
      },
    }),
    srcSet: t.string({
      nullable: true,
      description:
        "A `srcset` attribute of transformed copies, one per width (by default every configured width up to the image's own); null for files that are not transformable images",
      select: { storageKey: true, width: true },
      args: {
        widths: t.arg.intList({ required: false }),
        format: t.arg({ type: MediaFormatEnum, required: false }),
        quality: t.arg.int({ required: false }),
      },
      resolve: (media, args, ctx) => {
        const { config } = ctx.services;
        const rules = config.media.transforms;
        const widths =
          args.widths ?? rules.widths.filter((width) => media.width === null || width <= media.width);
        const options = checkedTransform({ format: args.format, quality: args.quality }, rules, "srcSet");
        checkedWidths(widths, rules);
        if (!isTransformable(media.storageKey)) return null;
        return srcSet(serviceBaseUrl(config), media.storageKey, widths, options);
      },
    }),
    alt: t.exposeString("alt", { nullable: true }),
    size: t.exposeInt("size", { description: "Bytes" }),
    mimeType: t.exposeString("mimeType", { nullable: true }),
    width: t.exposeInt("width", { nullable: true }),
    height: t.exposeInt("height", { nullable: true }),
    duration: t.exposeInt("duration", { nullable: true, description: "Milliseconds" }),
    blurHash: t.exposeString("blurHash", { nullable: true }),
    type: t.expose("type", { type: MediaTypeEnum }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    updatedAt: t.expose("updatedAt", { type: "DateTime" }),
  }),
});

const MediaPage = pageType("MediaPage", Media);

builder.queryFields((t) => ({
  media: t.prismaField({
    type: "Media",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const media = await ctx.prisma.media.findFirst({
        ...query,
        where: { id: String(args.id), workspaceId: ctx.caller.workspaceId },
      });
      if (!media) throw notFoundError("Media", String(args.id));
      return media;
    },
  }),
  mediaList: t.field({
    type: MediaPage,
    description: "Media, newest first unless `order` says otherwise",
    args: {
      ...pageArgs(t.arg),
      type: t.arg({ type: MediaTypeEnum, required: false }),
      query: t.arg.string({ required: false, description: "Matches part of the name, case-insensitively" }),
      order: t.arg({ type: SortOrderEnum, defaultValue: "desc", description: "By createdAt" }),
    },
    complexity: pageListComplexity,
    resolve: (_root, args, ctx, info) =>
      listPage(ctx, info, ctx.prisma.media, {
        where: {
          workspaceId: ctx.caller.workspaceId,
          ...(args.type ? { type: args.type } : {}),
          ...(args.query?.trim() ? { name: { contains: args.query.trim(), mode: "insensitive" } } : {}),
        },
        orderBy: [{ createdAt: args.order ?? "desc" }, { id: "asc" }],
        args,
      }),
  }),
}));

builder.mutationFields((t) => ({
  uploadMedia: t.prismaField({
    type: "Media",
    description: "Uploads a file (GraphQL multipart request); its real type is detected from its bytes",
    args: {
      file: t.arg({ type: "Upload", required: true }),
      name: t.arg.string({ required: false, description: "Defaults to the file name" }),
      alt: t.arg.string({ required: false }),
    },
    resolve: async (query, _root, args, ctx) => {
      const { config, mediaStorage, logger } = ctx.services;
      const id = await createMedia(
        { prisma: ctx.prisma, storage: mediaStorage, logger, maxBytes: config.media.maxBytes },
        ctx.caller.workspaceId,
        {
          bytes: new Uint8Array(await args.file.arrayBuffer()),
          filename: args.file.name,
          name: args.name,
          alt: args.alt,
        },
      );
      return readBack(ctx.prisma.media.findUnique({ ...query, where: { id } }), "Media", id);
    },
  }),
  updateMedia: t.prismaField({
    type: "Media",
    args: {
      id: t.arg.id({ required: true }),
      name: t.arg.string({ required: false }),
      alt: t.arg.string({ required: false }),
    },
    resolve: async (query, _root, args, ctx) => {
      const storage = ctx.services.mediaStorage;
      const id = await updateMedia({ prisma: ctx.prisma, storage }, ctx.caller.workspaceId, String(args.id), {
        name: args.name,
        alt: args.alt,
      });
      return readBack(ctx.prisma.media.findUnique({ ...query, where: { id } }), "Media", id);
    },
  }),
  deleteMedia: t.field({
    type: DeleteResult,
    description: "Deletes the record and its stored file",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const { mediaStorage, logger } = ctx.services;
      return {
        id: await deleteMedia(
          { prisma: ctx.prisma, storage: mediaStorage, logger },
          ctx.caller.workspaceId,
          String(args.id),
        ),
      };
    },
  }),
}));
