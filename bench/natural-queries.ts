// PostGraphile 5's forms of our read routes over its natural schema (bench/natural-schema.ts), as its
// users would write them with the amber preset's generated API: `postBySlug` for one post, `allPosts`
// with a condition and an order for a page (with its total where our route returns one), and a tag's
// page through its `posts_tags` rows. They select what our routes answer, as far as the schema has it
// (it has no custom fields, no attribution and one author per post).

/** Our REST post's fields in the natural schema. */
const POST_NODE = `rowId slug title status featured coverImage description publishedAt updatedAt content
  authorByAuthorId { rowId name image bio role slug }
  categoryByCategoryId { rowId name slug description }
  postsTagsByPostId { nodes { tagByTagId { rowId name slug description } } }`;

const page = (first: number) => `query Page {
  allPosts(first: ${first}, orderBy: PUBLISHED_AT_DESC, condition: { status: published }) {
    totalCount nodes { ${POST_NODE} }
  }
}`;

const BY_SLUG = `query One($slug: String!) { postBySlug(slug: $slug) { ${POST_NODE} } }`;

/**
 * The GraphQL document, `{ posts(limit:10){ items { id slug title content publishedAt authors{
 * name slug } category{ name slug } tags{ name slug } } } }`: no total asked, none counted.
 */
const GRAPHQL_LIST = `query List {
  allPosts(first: 10, orderBy: PUBLISHED_AT_DESC, condition: { status: published }) {
    nodes {
      rowId slug title content publishedAt
      authorByAuthorId { name slug }
      categoryByCategoryId { name slug }
      postsTagsByPostId { nodes { tagByTagId { name slug } } }
    }
  }
}`;

/**
 * The 10 newest with one tag, through the tag's `posts_tags` rows. The amber preset can filter and order
 * those rows by their own indexed columns only (`post_id`, `tag_id`): not by the post's status nor its
 * `published_at` (that takes a computed column, a custom query or the connection-filter plugin). So the
 * page is ordered by `post_id` descending, which is publication order here (posts were inserted in it),
 * and it counts and may list drafts: a query PostgreSQL answers with less work than our tag filter.
 */
const TAG_PAGE = `query Tagged($tag: String!) {
  tagBySlug(slug: $tag) {
    postsTagsByTagId(first: 10, orderBy: POST_ID_DESC) { totalCount nodes { postByPostId { ${POST_NODE} } } }
  }
}`;

export interface NaturalFixtures {
  postSlug: string;
  /** The tag of the tag route, by the slug ours filters on. */
  tagSlug: string;
}

/** PostGraphile's form of each read route over the natural schema, by the route ids of bench:peers. */
export function naturalQueries(
  f: NaturalFixtures,
): Record<
  "list10" | "list100" | "get" | "graphql" | "tag",
  { query: string; variables: Record<string, unknown> }
> {
  return {
    list10: { query: page(10), variables: {} },
    list100: { query: page(100), variables: {} },
    get: { query: BY_SLUG, variables: { slug: f.postSlug } },
    graphql: { query: GRAPHQL_LIST, variables: {} },
    tag: { query: TAG_PAGE, variables: { tag: f.tagSlug } },
  };
}
