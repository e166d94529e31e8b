// One post by id or slug through the read model: its row, relations and the workspace's field
// definitions in one statement (readSinglePostRow: the relations correlated subqueries of the row), where Prisma's relation-join query
// and a second statement for the definitions took two round trips and Prisma's result mapping
// (issue 39: PostGraphile answered a post by slug twice as fast, with a third of PostgreSQL's CPU).
// Only for plans the read model covers (the REST post body, a frontend's post page); any other goes
// through Prisma as before.
import type { GraphQLResolveInfo } from "graphql";
import { identifierCondition } from "../../content/identifiers.ts";
import type { PostStatusFilter } from "../../content/posts/post-filters.ts";
import { postListCondition, SqlParams } from "../../content/posts/post-list-sql.ts";
import type { Post } from "../../generated/prisma/client.ts";
import type { GraphQLContext } from "../context.ts";
import { type PlannedPostQuery, readModelCovers, readModelPays, readSinglePostRow } from "./post-rows.ts";
import { relationColumnsOf } from "./relation-columns.ts";
import { selectsLocaleFacts } from "./selected-fields.ts";

/** True when the read model loads this plan of a single post, and gains by it. */
export function readsSinglePost(query: PlannedPostQuery): boolean {
  return readModelCovers(query) && readModelPays(query);
}

/**
 * The post of the caller's workspace that `identifier` names (its id, else its slug: identifiers.ts)
 * and whose status matches, as
 * Prisma's findFirst with `query` would return it; null when there is none.
 */
export async function readSinglePost(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  query: PlannedPostQuery,
  where: { identifier: string; status: PostStatusFilter; now: Date },
): Promise<Post | null> {
  const { workspaceId } = ctx.caller;
  const params = new SqlParams();
  const identifier = params.add(where.identifier);
  const condition = `${postListCondition(workspaceId, { status: where.status, now: where.now }, params)}
    AND ${identifierCondition("Post", "p", identifier)}`;
  const withFieldDefinitions =
    Boolean(query.select?.fieldValues) && !ctx.loaders.loadedFieldDefinitions.has(workspaceId);
  const withLocales = selectsLocaleFacts(info) && !ctx.loaders.knownWorkspaceLocales(workspaceId);
  const { item, fieldDefinitions, head, locales } = await readSinglePostRow(
    ctx.sql,
    workspaceId,
    { condition, params, withFieldDefinitions, withHead: ctx.answerHead?.head === null, withLocales },
    query,
    relationColumnsOf(info, null),
  );
  if (fieldDefinitions) ctx.loaders.primeFieldDefinitions(workspaceId, fieldDefinitions);
  if (locales) ctx.loaders.primeWorkspaceLocales(workspaceId, locales);
  if (head !== null && ctx.answerHead?.head === null) ctx.answerHead.head = head;
  // Prisma's shape for the plan (post-rows.ts; test/graphql/post-rows.test.ts compares them).
  return item as Post | null;
}
