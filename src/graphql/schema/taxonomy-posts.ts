// The `posts` field of categories and tags: a page of their published posts. It lives here, not in
// taxonomy-schema.ts, because the post type lists a post's tags: this file imports both sides, so
// neither has to import the other.
import type { Prisma } from "../../generated/prisma/client.ts";
import { builder } from "../builder.ts";
import { pageArgs, pageListComplexity } from "../pagination.ts";
import { Category } from "./category.ts";
import { PostPage } from "./post.ts";
import { Tag } from "./tag.ts";
import { publishedPostsPage } from "./taxonomy-fields.ts";

const taxonomies = [
  {
    ref: Category,
    postsOf: (id: string): Prisma.PostWhereInput => ({ categoryId: id }),
    description: "Published posts in this category, newest first",
  },
  {
    ref: Tag,
    postsOf: (id: string): Prisma.PostWhereInput => ({ tags: { some: { tagId: id } } }),
    description: "Published posts with this tag, newest first",
  },
];

for (const { ref, postsOf, description } of taxonomies) {
  builder.prismaObjectField(ref, "posts", (t) =>
    t.field({
      type: PostPage,
      description,
      args: pageArgs(t.arg),
      complexity: pageListComplexity,
      resolve: (record, args, ctx, info) => publishedPostsPage(ctx, info, postsOf(record.id), args),
    }),
  );
}
