// Category: type, queries and mutations (shared with tags, see taxonomy-schema.ts).
import { liveWhere } from "../../content/post-visibility.ts";
import { defineTaxonomySchema } from "./taxonomy-schema.ts";

export const Category = defineTaxonomySchema({
  type: "Category",
  one: "category",
  many: "categories",
  publishedLinks: (now) => liveWhere(now),
  deleteDescription: "Refused while the category still has posts",
});
