// Tag: type, queries and mutations (shared with categories, see taxonomy-schema.ts).
import { liveWhere } from "../../content/post-visibility.ts";
import { defineTaxonomySchema } from "./taxonomy-schema.ts";

export const Tag = defineTaxonomySchema({
  type: "Tag",
  one: "tag",
  many: "tags",
  publishedLinks: (now) => ({ post: liveWhere(now) }),
});
