// Which scope each GraphQL operation needs: the one table of it (issue 57). Every door runs a GraphQL
// operation (REST routes run theirs in-process, the cached-read door serves only what one computed), so
// checking these fields checks every door. A field not listed here needs nothing beyond a valid key of
// the workspace; every root field must be listed (checked when the schema is built), and the scope
// matrix test (test/auth/scope-matrix.test.ts) calls each of them, and each REST route, with keys that
// lack the scope and keys that hold only it.
//
// Drafts reached through a list or a lookup (`posts(status: draft)`, `post(id)` of a draft) are refused
// by the read model itself with the same `drafts:read` rule (context.ts assertCanReadDrafts): which
// status a query reaches is known only from its arguments and rows.
import {
  type DocumentNode,
  defaultFieldResolver,
  type GraphQLField,
  type GraphQLSchema,
  isObjectType,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from "graphql";
import type { Scope } from "../../auth/scopes.ts";
import { assertScope, type GraphQLContext } from "../context.ts";

export const FIELD_SCOPES = {
  "Query.author": "content:read",
  "Query.authors": "content:read",
  "Query.categories": "content:read",
  "Query.category": "content:read",
  "Query.changes": "content:read",
  "Query.field": "content:read",
  "Query.fields": "content:read",
  "Query.locales": "content:read",
  "Query.media": "content:read",
  "Query.mediaList": "content:read",
  "Query.post": "content:read",
  "Query.posts": "content:read",
  "Query.postsConnection": "content:read",
  "Query.tag": "content:read",
  "Query.tags": "content:read",
  "Query.postRevision": "drafts:read",
  "Query.postRevisionComparison": "drafts:read",
  "Query.events": "events:read",
  "Query.webhookDeliveries": "webhooks:manage",
  "Query.webhookEndpoint": "webhooks:manage",
  "Query.webhookEndpoints": "webhooks:manage",
  "Query.apiKeys": "keys:manage",
  "Post.revisions": "drafts:read",
  "Mutation.createPost": "posts:write",
  "Mutation.updatePost": "posts:write",
  "Mutation.deletePost": "posts:write",
  "Mutation.restorePostRevision": "posts:write",
  "Mutation.createPostPreview": "drafts:read",
  "Mutation.revokePostPreviews": "drafts:read",
  "Mutation.createAuthor": "taxonomy:write",
  "Mutation.updateAuthor": "taxonomy:write",
  "Mutation.deleteAuthor": "taxonomy:write",
  "Mutation.createCategory": "taxonomy:write",
  "Mutation.updateCategory": "taxonomy:write",
  "Mutation.deleteCategory": "taxonomy:write",
  "Mutation.createTag": "taxonomy:write",
  "Mutation.updateTag": "taxonomy:write",
  "Mutation.deleteTag": "taxonomy:write",
  "Mutation.uploadMedia": "media:write",
  "Mutation.updateMedia": "media:write",
  "Mutation.deleteMedia": "media:write",
  "Mutation.createField": "fields:write",
  "Mutation.updateField": "fields:write",
  "Mutation.deleteField": "fields:write",
  "Mutation.createLocale": "locales:write",
  "Mutation.updateLocale": "locales:write",
  "Mutation.deleteLocale": "locales:write",
  "Mutation.createWebhookEndpoint": "webhooks:manage",
  "Mutation.updateWebhookEndpoint": "webhooks:manage",
  "Mutation.deleteWebhookEndpoint": "webhooks:manage",
  "Mutation.rotateWebhookEndpointSecret": "webhooks:manage",
  "Mutation.sendWebhookTestEvent": "webhooks:manage",
  "Mutation.retryWebhookDelivery": "webhooks:manage",
  "Mutation.replayWebhookEvents": "webhooks:manage",
  "Mutation.createApiKey": "keys:manage",
  "Mutation.rotateApiKey": "keys:manage",
  "Mutation.revokeApiKey": "keys:manage",
  "Subscription.contentChanged": "content:read",
} as const satisfies Record<string, Scope>;

export type ScopedField = keyof typeof FIELD_SCOPES;

/**
 * The two /v1 routes that carry a workspace as bytes rather than run a GraphQL operation (a streamed
 * export archive out, an uploaded export in: src/rest/transfer-routes.ts). Their scope is declared here,
 * beside every other, and the scope matrix test calls them like the rest.
 */
export const BYTE_ROUTE_SCOPES = {
  "GET /export": "transfer",
  "POST /import": "transfer",
} as const satisfies Record<string, Scope>;

const ROOT_TYPES = ["Query", "Mutation", "Subscription"] as const;

/** Wraps each listed field so it refuses a caller without its scope before it resolves (once, at build). */
export function applyScopeRules(schema: GraphQLSchema): void {
  const listed = new Map<string, Scope>(Object.entries(FIELD_SCOPES));
  for (const typeName of ROOT_TYPES) {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) continue;
    for (const name of Object.keys(type.getFields()))
      if (!listed.has(`${typeName}.${name}`))
        throw new Error(`${typeName}.${name} has no scope in src/graphql/execution/scope-rules.ts`);
  }
  for (const [coordinate, scope] of listed) {
    const field = fieldAt(schema, coordinate);
    if (!field)
      throw new Error(
        `src/graphql/execution/scope-rules.ts names ${coordinate}, which the schema does not have`,
      );
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = (parent, args, context, info) => {
      assertScope(context as GraphQLContext, scope);
      return resolve(parent, args, context, info);
    };
    if (field.subscribe) {
      const subscribe = field.subscribe;
      field.subscribe = (parent, args, context, info) => {
        assertScope(context as GraphQLContext, scope);
        return subscribe(parent, args, context, info);
      };
    }
  }
}

/**
 * Every scope a document's fields need, at the root and below (a REST route's document selects
 * `Post.revisions` under `post`): what a REST route checks before it runs.
 */
export function scopesOfDocument(schema: GraphQLSchema, document: DocumentNode): Scope[] {
  const scopes = new Set<Scope>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field(node) {
        const parent = typeInfo.getParentType();
        const scope = parent
          ? (FIELD_SCOPES as Record<string, Scope>)[`${parent.name}.${node.name.value}`]
          : undefined;
        if (scope) scopes.add(scope);
      },
    }),
  );
  return [...scopes];
}

function fieldAt(schema: GraphQLSchema, coordinate: string): GraphQLField<unknown, unknown> | undefined {
  const [typeName, fieldName] = coordinate.split(".");
  const type = typeName ? schema.getType(typeName) : undefined;
  return isObjectType(type) && fieldName ? type.getFields()[fieldName] : undefined;
}
