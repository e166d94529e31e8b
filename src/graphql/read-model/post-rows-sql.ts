// The SQL of the post read model (post-rows.ts): the rows of a list of post ids as one json array, with
// only the parts the plan asks for. One text per shape of plan, built once.
import type { RelationColumns } from "./relation-columns.ts";

/**
 * Where a rows statement finds its posts: the workspace's placeholder and an expression of the ids as a
 * text[] (a parameter, or the page's own ids computed in the same statement: post-rows.ts).
 */
export interface PostIdsSource {
  workspace: string;
  ids: string;
}

/** The rows of the ids in a text[] parameter: `$1` the workspace, `$2` the ids. */
export const IDS_PARAMETER: PostIdsSource = { workspace: "$1", ids: "$2::text[]" };

/** Which parts of the read form a plan asks for. */
export interface PostRowParts {
  content: boolean;
  category: boolean;
  authors: boolean;
  tags: boolean;
  fieldValues: boolean;
  /** Every column of the authors, tags and category, or only those the read form shows (relation-columns.ts). */
  relationColumns: RelationColumns;
}

/**
 * A timestamp as milliseconds since the epoch (the columns are `timestamp(3)` holding UTC): a json number
 * becomes a Date with no string to parse, where json's own timestamp text would need one. `date_part`
 * (double precision), not `extract` (numeric, several times slower per value); whole milliseconds
 * survive the float and the rounding cast exactly.
 */
const epochMs = (column: string) => `(date_part('epoch', ${column}) * 1000)::int8`;

// A category or tag: the columns the read form shows (SHOWN_RELATION_FIELDS), then with "all" the rest.
const TAXONOMY_JSON = (alias: string, columns: RelationColumns) =>
  `json_build_object('id', ${alias}.id, 'name', ${alias}.name, 'slug', ${alias}.slug,
     'description', ${alias}.description${
       columns === "all"
         ? `, 'workspaceId', ${alias}."workspaceId", 'createdAt', ${epochMs(`${alias}."createdAt"`)},
     'updatedAt', ${epochMs(`${alias}."updatedAt"`)}`
         : ""
     })`;

// Each relation's list: its aggregate (over `pa`, `pt` or `v`) and its FROM, shared by the page's
// aggregates (one join per relation for the whole page) and a single post's correlated subqueries.
const AUTHORS_LIST = (columns: RelationColumns) =>
  `json_agg(json_build_object('author', json_build_object(
           'id', a.id, 'name', a.name, 'slug', a.slug, 'image', a.image, 'bio', a.bio, 'role', a.role,
           'socials', a.socials${
             columns === "all"
               ? `, 'workspaceId', a."workspaceId", 'email', a.email,
           'createdAt', ${epochMs('a."createdAt"')}, 'updatedAt', ${epochMs('a."updatedAt"')}`
               : ""
           })) ORDER BY pa.position)`;
const AUTHORS_FROM = `FROM "PostAuthor" pa JOIN "Author" a ON a.id = pa."authorId"`;

// By name, ties by id: the order of Post.tags' Prisma plan (schema/post.ts).
const TAGS_LIST = (columns: RelationColumns) =>
  `json_agg(json_build_object('tag', ${TAXONOMY_JSON("t", columns)}) ORDER BY t.name, t.id)`;
const TAGS_FROM = `FROM "PostTag" pt JOIN "Tag" t ON t.id = pt."tagId"`;

const FIELD_VALUES_LIST = `json_agg(json_build_object('fieldId', v."fieldId", 'value', v.value))`;
const FIELD_VALUES_FROM = `FROM "PostFieldValue" v`;

const AUTHORS_CTE = (columns: RelationColumns, ids: string) => `authors AS (
  SELECT pa."postId", ${AUTHORS_LIST(columns)} AS list
    ${AUTHORS_FROM}
   WHERE pa."postId" = ANY(${ids})
   GROUP BY pa."postId"
)`;

const TAGS_CTE = (columns: RelationColumns, ids: string) => `tags AS (
  SELECT pt."postId", ${TAGS_LIST(columns)} AS list
    ${TAGS_FROM}
   WHERE pt."postId" = ANY(${ids})
   GROUP BY pt."postId"
)`;

const FIELD_VALUES_CTE = (ids: string) => `field_values AS (
  SELECT v."postId", ${FIELD_VALUES_LIST} AS list
    ${FIELD_VALUES_FROM}
   WHERE v."postId" = ANY(${ids})
   GROUP BY v."postId"
)`;

// The post's own columns in the read form, as columns of the statement: json built for each row costs
// PostgreSQL more than the columns themselves (about 0.7 ms of CPU for a page of 100, issue 39), and
// the driver reads text columns without a JSON.parse. Timestamps as milliseconds since the epoch in a
// double precision column (a number in both drivers, where int8 would arrive as a string or a BigInt),
// rounded to whole milliseconds as the columns hold them.
const epochMsColumn = (column: string, name: string) =>
  `round(date_part('epoch', ${column}) * 1000) AS "${name}"`;
const POST_COLUMNS_SQL = `p.id, p."workspaceId", p.slug, p.title, p.status, p.featured, p."coverImage",
     p.description, p.attribution, ${epochMsColumn('p."publishedAt"', "publishedAt")},
     ${epochMsColumn('p."createdAt"', "createdAt")}, ${epochMsColumn('p."updatedAt"', "updatedAt")}, p."categoryId"`;

/**
 * The posts of workspace `$1` whose ids the text[] `$2` lists, one row each in that order (unknown ids,
 * and ids of other workspaces, left out): the post's own columns (POST_COLUMNS_SQL), each relation the
 * plan asks for as a json column named after it, and `content`, the body, when the plan asks for it. A
 * body inside json would be escaped by PostgreSQL and unescaped by the driver only to be escaped again in
 * the answer; as text it arrives as it is stored (with the rows of a page of 100 bodies, the statement
 * took about a third less time). json (not jsonb) relations: nothing is compared or indexed, and building
 * json is the cheaper of the two. Relations are aggregated for the whole page at once (one join each, not one subquery per
 * post), each looked up by the listed ids through its post index: matched against the ids' own array,
 * the plan settles on index lookups whatever the page size (matched against the page, a generic plan read
 * all of PostAuthor for a page of 100).
 */
export function postRowsSql(parts: PostRowParts): string {
  const key = JSON.stringify(parts);
  let sql = built.get(key);
  if (!sql) {
    const { ctes, columns, from } = postRowsParts(parts, IDS_PARAMETER);
    sql = `WITH ${ctes.join(", ")}\nSELECT ${columns}\n${from}\nORDER BY page.ord`;
    built.set(key, sql);
  }
  return sql;
}
const built = new Map<string, string>();

/**
 * The rows statement's CTEs (`page`: the ids with their position `ord`, first), its columns (as
 * postRowsSql's) and its FROM over `page`, for a statement of the caller's to compose.
 */
export function postRowsParts(parts: PostRowParts, source: PostIdsSource): PostRowsStatementParts {
  const key = `${JSON.stringify(parts)} ${source.workspace} ${source.ids}`;
  let built = builtParts.get(key);
  if (!built) {
    built = buildPostRowsParts(parts, source);
    builtParts.set(key, built);
  }
  return built;
}
/** Few: one per shape of plan and placeholder of the workspace (a page's filters number its parameters). */
const builtParts = new Map<string, PostRowsStatementParts>();

interface PostRowsStatementParts {
  ctes: readonly string[];
  columns: string;
  from: string;
}

function buildPostRowsParts(parts: PostRowParts, source: PostIdsSource): PostRowsStatementParts {
  const { ids, workspace } = source;
  const ctes = [`page AS (SELECT id, ord FROM unnest(${ids}) WITH ORDINALITY AS page(id, ord))`];
  const columns = [POST_COLUMNS_SQL];
  const joins = [`JOIN "Post" p ON p.id = page.id AND p."workspaceId" = ${workspace}`];
  if (parts.category) {
    columns.push(`${TAXONOMY_JSON("c", parts.relationColumns)} AS category`);
    joins.push(`JOIN "Category" c ON c.id = p."categoryId"`);
  }
  const lists = [
    [parts.authors, "authors", "authors", AUTHORS_CTE(parts.relationColumns, ids), "au"],
    [parts.tags, "tags", "tags", TAGS_CTE(parts.relationColumns, ids), "tg"],
    [parts.fieldValues, "fieldValues", "field_values", FIELD_VALUES_CTE(ids), "fv"],
  ] as const;
  for (const [wanted, name, table, cte, alias] of lists) {
    if (!wanted) continue;
    ctes.push(cte);
    columns.push(`coalesce(${alias}.list, '[]') AS "${name}"`);
    joins.push(`LEFT JOIN ${table} ${alias} ON ${alias}."postId" = p.id`);
  }
  if (parts.content) columns.push("p.content");
  return { ctes, columns: columns.join(", "), from: `FROM page\n${joins.join("\n")}` };
}

/**
 * The columns of one post `p` in the read form (as postRowsSql's), each relation a
 * correlated subquery: for one row, a few index lookups of its own rows cost PostgreSQL about half of
 * what the page's form (an id array, its unnest, one aggregate per relation joined back and sorted)
 * costs for a page of one (issue 39).
 */
export function singlePostColumns(parts: PostRowParts): string {
  const key = JSON.stringify(parts);
  let built = builtSingle.get(key);
  if (!built) {
    const columns = [POST_COLUMNS_SQL];
    const relationColumns = parts.relationColumns;
    if (parts.category)
      columns.push(
        `(SELECT ${TAXONOMY_JSON("c", relationColumns)} FROM "Category" c WHERE c.id = p."categoryId") AS category`,
      );
    const lists = [
      [parts.authors, "authors", AUTHORS_LIST(relationColumns), AUTHORS_FROM, "pa"],
      [parts.tags, "tags", TAGS_LIST(relationColumns), TAGS_FROM, "pt"],
      [parts.fieldValues, "fieldValues", FIELD_VALUES_LIST, FIELD_VALUES_FROM, "v"],
    ] as const;
    for (const [wanted, name, list, from, alias] of lists)
      if (wanted)
        columns.push(`coalesce((SELECT ${list} ${from} WHERE ${alias}."postId" = p.id), '[]') AS "${name}"`);
    if (parts.content) columns.push("p.content");
    built = columns.join(", ");
    builtSingle.set(key, built);
  }
  return built;
}
const builtSingle = new Map<string, string>();
