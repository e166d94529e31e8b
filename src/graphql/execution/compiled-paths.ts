// graphql-jit (use-compiled-operations.ts) hands every resolver call a response path built afresh,
// where graphql-js shares one path object per position (the link for row 3 of a list is the same object
// for every field of that row). plugin-prisma's per-row bookkeeping memoises per path object: on fresh
// paths it rebuilds and re-records every link on every call, which cost more than the rest of a page of
// 100 posts' resolvers together. In a compiled execution the resolvers plugin-prisma wraps get an
// interned path instead: one object per position per request, as graphql-js would have given.
import { type GraphQLField, type GraphQLSchema, isObjectType } from "graphql";
import type { Path } from "graphql/jsutils/Path.js";

const compiledContexts = new WeakSet<object>();

/** Marks a request's context as executing compiled (its paths are interned from then on). */
export function markCompiledContext(context: unknown): void {
  if (typeof context === "object" && context !== null) compiledContexts.add(context);
}

interface InternedPath extends Path {
  children?: Map<string | number, InternedPath>;
}

/** Per request: the interned root links, by key. */
const roots = new WeakMap<object, Map<string | number, InternedPath>>();

function intern(context: object, path: Path | undefined): InternedPath | undefined {
  if (!path) return undefined;
  const prev = intern(context, path.prev);
  let siblings: Map<string | number, InternedPath> | undefined;
  if (prev) siblings = prev.children ??= new Map();
  else {
    siblings = roots.get(context);
    if (!siblings) {
      siblings = new Map();
      roots.set(context, siblings);
    }
  }
  let link = siblings.get(path.key);
  if (!link) {
    link = { prev, key: path.key, typename: path.typename };
    siblings.set(path.key, link);
  }
  return link;
}

/** Wraps the resolvers plugin-prisma keeps per-row books for (fields with a Prisma selection). */
export function internCompiledPaths(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type)) continue;
    for (const field of Object.values(type.getFields()) as GraphQLField<unknown, object>[]) {
      const resolve = field.resolve;
      if (!resolve || !field.extensions?.pothosPrismaSelect) continue;
      field.resolve = (parent, args, context, info) => {
        if (compiledContexts.has(context)) (info as { path: Path }).path = intern(context, info.path) as Path;
        return resolve(parent, args, context, info);
      };
    }
  }
}
