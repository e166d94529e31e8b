// Input types of the post mutations (the REST bodies map onto them one to one). They carry the
// domain's CreatePostData and UpdatePostData (src/domain/inputs.ts): the compiler holds them together
// where post.ts hands an input to createPost and updatePost.
import { builder } from "../builder.ts";
import { ContentFormatEnum, PostStatusEnum } from "./enums.ts";

export const CreatePostInput = builder.inputType("CreatePostInput", {
  fields: (t) => ({
    title: t.string({ required: true }),
    content: t.string({ required: true, description: "HTML, or markdown when contentFormat is MARKDOWN" }),
    contentFormat: t.field({ type: ContentFormatEnum, defaultValue: "html" }),
    description: t.string({ required: true }),
    slug: t.string({ required: true }),
    categoryId: t.id({ required: true }),
    status: t.field({ type: PostStatusEnum, required: true }),
    tags: t.idList({ required: false }),
    authors: t.idList({ required: false, description: "Defaults to the workspace's first author" }),
    featured: t.boolean({ required: false }),
    coverImage: t.string({ required: false }),
    publishedAt: t.field({ type: "DateTime", required: false, description: "Defaults to now" }),
    unpublishAt: t.field({
      type: "DateTime",
      required: false,
      description: "A scheduled unpublish: back to draft then (in the future, after publishedAt)",
    }),
    attribution: t.string({ required: false }),
    fields: t.field({ type: "JSON", required: false, description: "Custom field values keyed by field key" }),
  }),
});

export const UpdatePostInput = builder.inputType("UpdatePostInput", {
  fields: (t) => ({
    title: t.string({ required: false }),
    content: t.string({ required: false }),
    contentFormat: t.field({ type: ContentFormatEnum, defaultValue: "html" }),
    description: t.string({ required: false }),
    slug: t.string({ required: false }),
    categoryId: t.id({ required: false }),
    status: t.field({ type: PostStatusEnum, required: false }),
    tags: t.idList({ required: false }),
    authors: t.idList({ required: false }),
    featured: t.boolean({ required: false }),
    coverImage: t.string({ required: false }),
    publishedAt: t.field({ type: "DateTime", required: false }),
    unpublishAt: t.field({
      type: "DateTime",
      required: false,
      description: "A scheduled unpublish (in the future, after publishedAt); null clears it",
    }),
    attribution: t.string({ required: false }),
    fields: t.field({ type: "JSON", required: false }),
  }),
});
