// Category: type, queries and mutations (shared with tags, see taxonomy-schema.ts).
import { defineTaxonomySchema } from "./taxonomy-schema.ts";

export const Category = defineTaxonomySchema({
  type: "Category",
  one: "category",
  many: "categories",
  postsOf: (id) => ({ categoryId: id }),
  publishedLinks: { status: "published" },
  postsDescription: "Published posts in this category, newest first",
  deleteDescription: "Refused while the category still has posts",
});
