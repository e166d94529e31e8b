// plugin-prisma's plan of a post list's rows, kept per operation when the read model covers it.
//
// Planning walks the request's selection and records, in the request's context, which loaded rows
// answer which fields: a walk per request, though the same operation with the same variables always
// plans the same. The records serve plugin-prisma's per-row bookkeeping, which rows of the read model
// skip (read-model-fields.ts). So a covered plan is kept, by operation (the parsed document: a REST
// route's is parsed once, a /graphql query's is the same object while Yoga's parse cache keeps it),
// field path and variables, and later requests reuse it without a walk. A covered plan holds only
// entries of READ_MODEL_SELECT, which are constants: nothing of the request (its time, its caller) can
// be in it, only which fields the selection asks for. Any other plan is made afresh each time, records
// and all, as plugin-prisma does (a tag's `count` of posts, say, is planned with the request's time).
// A kept plan also keeps which of the relations' columns its selection needs (relation-columns.ts), and
// whether it asks for the page's numbers (a count) and for the posts' locale facts.
import { queryFromInfo } from "@pothos/plugin-prisma";
import type { GraphQLResolveInfo, OperationDefinitionNode } from "graphql";
import { LRUCache } from "lru-cache";
import type { GraphQLContext } from "../context.ts";
import { type PlannedPostQuery, readModelCovers } from "./post-rows.ts";
import { type RelationColumns, relationColumnsOf } from "./relation-columns.ts";
import { selectsChild, selectsLocaleFacts } from "./selected-fields.ts";

/** A post list's plan: plugin-prisma's query, and for a plan the read model covers, how it loads it. */
export type PostItemsPlan =
  | { query: PlannedPostQuery; covered: false }
  | {
      query: PlannedPostQuery;
      covered: true;
      relationColumns: RelationColumns;
      /** Whether the page's `pagination` is selected: the posts matching are counted only then. */
      counted: boolean;
      /** Whether the posts' locale, availableLocales or alternates are (default-locale-facts.ts). */
      localeFacts: boolean;
    };

/**
 * Kept plans, bounded by the length of their keys (the variables are in the key, and a client chooses
 * them): a plan itself is a few small objects.
 */
const coveredPlans = new LRUCache<string, PostItemsPlan>({
  maxSize: 4 * 1024 * 1024,
  sizeCalculation: (_plan, key) => key.length + 512,
});

/** Each operation's number in the keys: the plans hold no reference to a document Yoga has let go. */
const operationIds = new WeakMap<OperationDefinitionNode, number>();
let lastOperationId = 0;

let plansMade = 0;

/** How many post-list plans this process has made (tests tell a kept plan from a fresh one). */
export function postPlansMade(): number {
  return plansMade;
}

/** The plan of the `items` of the post page being resolved (frozen when kept: it is shared). */
export function planPostItems(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
  /** Where the posts sit under the field: a page's `items`, a connection's `edges.node`. */
  path: string[] = ["items"],
): PostItemsPlan {
  let operationId = operationIds.get(info.operation);
  if (operationId === undefined) {
    operationId = ++lastOperationId;
    operationIds.set(info.operation, operationId);
  }
  const key = `${operationId}\n${responsePathOf(info)}\n${path.join(".")}\n${JSON.stringify(info.variableValues)}`;
  const kept = coveredPlans.get(key);
  if (kept) return kept;
  const query = queryFromInfo({ context: ctx, info, path }) as PlannedPostQuery;
  plansMade++;
  if (!readModelCovers(query)) return { query, covered: false };
  const plan = deepFreeze({
    query,
    covered: true,
    relationColumns: relationColumnsOf(info),
    counted: selectsChild(info, "pagination"),
    localeFacts: selectsLocaleFacts(info, path),
  } as const);
  coveredPlans.set(key, plan);
  return plan;
}

function responsePathOf(info: GraphQLResolveInfo): string {
  let text = "";
  for (let link: GraphQLResolveInfo["path"] | undefined = info.path; link; link = link.prev)
    text = `${link.key}.${text}`;
  return text;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}
