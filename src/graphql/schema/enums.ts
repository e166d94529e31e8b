// Enums shared by several resources.
import { builder } from "../builder.ts";

export const PostStatusEnum = builder.enumType("PostStatus", {
  values: { PUBLISHED: { value: "published" }, DRAFT: { value: "draft" } } as const,
});

export const PostStatusFilterEnum = builder.enumType("PostStatusFilter", {
  description:
    "Which posts a read sees: published (default; public now), scheduled (published with a publishedAt ahead), drafts, or all. All but published need a private key.",
  values: {
    PUBLISHED: { value: "published" },
    SCHEDULED: { value: "scheduled" },
    DRAFT: { value: "draft" },
    ALL: { value: "all" },
  } as const,
});

export const ContentFormatEnum = builder.enumType("ContentFormat", {
  values: { HTML: { value: "html" }, MARKDOWN: { value: "markdown" } } as const,
});

export const SortOrderEnum = builder.enumType("SortOrder", {
  values: { ASC: { value: "asc" }, DESC: { value: "desc" } } as const,
});

export const DeleteResult = builder.objectRef<{ id: string }>("DeleteResult").implement({
  fields: (t) => ({ id: t.exposeID("id") }),
});
