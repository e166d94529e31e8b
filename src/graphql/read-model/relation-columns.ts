// Which columns of a listed post's authors, tags and category the read model loads (post-rows-sql.ts).
//
// Author, Tag and Category are plugin-prisma types in include mode: their plan is always `true` (every
// column), whatever fields the selection asks for. Most selections — the REST post read form, a
// frontend's list — ask only for fields the post's read form shows (names, slugs, descriptions,
// socials). Then the read model leaves out the other columns (workspace ids, the author's email, the
// timestamps): a third of a page's json that the driver would parse for nothing, and PostgreSQL build
// (bench/README.md, "A read model cut to the selection"). Any other field anywhere under them (`email`,
// `createdAt`, ...) and every column is loaded, as before.
import type { FieldNode, GraphQLResolveInfo } from "graphql";
import { eachField } from "./selected-fields.ts";

/**
 * All the relations' columns (Prisma's rows for the plan), only those the read form shows, or only
 * their names (id, name, slug: a frontend's list that links to each author, category and tag).
 */
export type RelationColumns = "all" | "shown" | "names";

/** The fields the names alone answer, on any relation. */
const NAMED_FIELDS = new Set(["__typename", "id", "name", "slug"]);

const TAXONOMY_SHOWN = new Set(["__typename", "id", "name", "slug", "description"]);

/**
 * The fields of each relation the shown columns answer, by the `Post` field that holds the relation.
 * The columns themselves: relation-layout.ts.
 */
const SHOWN_RELATION_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  authors: new Set(["__typename", "id", "name", "slug", "image", "bio", "role", "socials"]),
  tags: TAXONOMY_SHOWN,
  category: TAXONOMY_SHOWN,
};

/**
 * "names" when the fields under the `itemsField` posts' relations are only ids, names and slugs; "shown"
 * when none asks for a column the read form does not show; with `itemsField` null, the field being resolved is the post itself (`post(identifier)`).
 * Fields under `@skip`/`@include` count as asked for (the answer is the same either way).
 */
export function relationColumnsOf(
  info: GraphQLResolveInfo,
  itemsField: string | null = "items",
): RelationColumns {
  let columns: RelationColumns = "names";
  const { fragments } = info;
  const visitPost = (post: FieldNode) =>
    eachField(post.selectionSet, fragments, (postField) => {
      const shown = SHOWN_RELATION_FIELDS[postField.name.value];
      if (!shown) return;
      eachField(postField.selectionSet, fragments, (field) => {
        const name = field.name.value;
        if (!shown.has(name)) columns = "all";
        else if (columns === "names" && !NAMED_FIELDS.has(name)) columns = "shown";
      });
    });
  for (const field of info.fieldNodes) {
    if (itemsField === null) visitPost(field);
    else
      eachField(field.selectionSet, fragments, (items) => {
        if (items.name.value === itemsField) visitPost(items);
      });
  }
  return columns;
}
