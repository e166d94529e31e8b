// Category: type, queries and mutations (shared with tags, see taxonomy-schema.ts).
import { defineTaxonomySchema } from "./taxonomy-schema.ts";

export const Category = defineTaxonomySchema({
  type: "Category",
  one: "category",
  many: "categories",
  publishedLinks: { status: "published" },
  deleteDescription: "Refused while the category still has posts",
});
