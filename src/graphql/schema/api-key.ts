// API keys of the caller's workspace (issue 57): listing, creating, rotating and revoking, for a key
// with keys:manage (src/graphql/execution/scope-rules.ts). A secret is returned once, beside the key it opens;
// no field ever holds one, and no key can make or rotate a key wider than its own scopes.
import { type ApiKeySummary, issueKey, listKeys, revokeKey, rotateKey } from "../../auth/api-keys.ts";
import { ALL_SCOPES } from "../../auth/scopes.ts";
import { InvalidInputError } from "../../domain/errors.ts";
import { builder } from "../builder.ts";

const ApiKey = builder.objectRef<ApiKeySummary>("ApiKey").implement({
  description: "An API key of the workspace; never its secret",
  fields: (t) => ({
    id: t.exposeID("id"),
    name: t.exposeString("name"),
    kind: t.exposeString("kind", { description: "public (pk_…) or private (sk_…)" }),
    displayHint: t.exposeString("displayHint", { description: "The key's first characters" }),
    scopes: t.exposeStringList("scopes", { description: `What the key may do: ${ALL_SCOPES.join(", ")}` }),
    allowedOrigins: t.exposeStringList("allowedOrigins", {
      description: "A public key answers browsers on these origins only (empty: any)",
    }),
    allowedAddresses: t.exposeStringList("allowedAddresses", {
      description: "A private key answers these client address ranges only (empty: any)",
    }),
    createdAt: t.expose("createdAt", { type: "DateTime" }),
    expiresAt: t.expose("expiresAt", { type: "DateTime", nullable: true }),
    lastUsedAt: t.expose("lastUsedAt", {
      type: "DateTime",
      nullable: true,
      description: "Recorded at most once a minute per instance",
    }),
    lastUsedFrom: t.exposeString("lastUsedFrom", {
      nullable: true,
      description: "The client address of that use",
    }),
    revokedAt: t.expose("revokedAt", { type: "DateTime", nullable: true }),
    revokedReason: t.exposeString("revokedReason", { nullable: true }),
    rotatedFromId: t.exposeString("rotatedFromId", {
      nullable: true,
      description: "The key this one replaced",
    }),
    graceEndsAt: t.expose("graceEndsAt", {
      type: "DateTime",
      nullable: true,
      description: "A rotated-out key works until then",
    }),
  }),
});

const ApiKeyWithSecret = builder
  .objectRef<{ key: string; apiKey: ApiKeySummary; replaced?: ApiKeySummary }>("ApiKeyWithSecret")
  .implement({
    fields: (t) => ({
      key: t.exposeString("key", { description: "The secret: shown this once, stored only as a hash" }),
      apiKey: t.field({ type: ApiKey, resolve: (made) => made.apiKey }),
      replaced: t.field({
        type: ApiKey,
        nullable: true,
        description: "On rotation: the key it replaces, working until its graceEndsAt",
        resolve: (made) => made.replaced ?? null,
      }),
    }),
  });

const CreateApiKeyInput = builder.inputType("CreateApiKeyInput", {
  fields: (t) => ({
    kind: t.string({ required: true, description: "public or private" }),
    name: t.string({ required: false }),
    scopes: t.stringList({ required: false, description: "A private key's scopes; default: all of yours" }),
    expiresAt: t.field({
      type: "DateTime",
      required: false,
      description: "Default: never, or the workspace's maximum lifetime for private keys",
    }),
    allowedOrigins: t.stringList({
      required: false,
      description: "Public keys: the browser origins it answers (https://www.example.com)",
    }),
    allowedAddresses: t.stringList({
      required: false,
      description: "Private keys: the client addresses or CIDR ranges it answers; within your own",
    }),
  }),
});

builder.queryFields((t) => ({
  apiKeys: t.field({
    type: [ApiKey],
    description: "The workspace's API keys, oldest first (keys:manage)",
    resolve: (_root, _args, ctx) => listKeys(ctx.prisma, ctx.caller.workspaceId),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: ApiKeyWithSecret,
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: (_root, { input }, ctx) => {
      const kind = input.kind === "public" || input.kind === "private" ? input.kind : null;
      if (!kind)
        throw new InvalidInputError('`kind` must be "public" or "private"', [
          { field: "kind", message: "Must be public or private" },
        ]);
      return issueKey(
        ctx.prisma,
        ctx.caller.workspaceId,
        {
          kind,
          ...(input.name != null ? { name: input.name } : {}),
          // A key makes keys no wider than itself: without a list, as wide as itself.
          scopes: input.scopes ?? (kind === "public" ? undefined : [...ctx.caller.scopes]),
          expiresAt: input.expiresAt ?? null,
          allowedOrigins: input.allowedOrigins ?? [],
          allowedAddresses: input.allowedAddresses ?? [],
        },
        { scopes: ctx.caller.scopes, allowedAddresses: ctx.caller.allowedAddresses },
      );
    },
  }),
  rotateApiKey: t.field({
    type: ApiKeyWithSecret,
    args: {
      id: t.arg.string({ required: true }),
      graceSeconds: t.arg.int({
        required: false,
        description: "How long the old secret keeps working (default 86400)",
      }),
    },
    resolve: (_root, { id, graceSeconds }, ctx) =>
      rotateKey(
        ctx.prisma,
        id,
        {
          workspaceId: ctx.caller.workspaceId,
          ...(graceSeconds != null ? { graceMs: graceSeconds * 1000 } : {}),
        },
        { scopes: ctx.caller.scopes, allowedAddresses: ctx.caller.allowedAddresses },
      ),
  }),
  revokeApiKey: t.field({
    type: ApiKey,
    args: {
      id: t.arg.string({ required: true }),
      reason: t.arg.string({ required: false }),
      withRotation: t.arg.boolean({
        required: false,
        description: "Also revoke the key it was rotated from or into",
      }),
    },
    resolve: (_root, { id, reason, withRotation }, ctx) =>
      revokeKey(ctx.prisma, id, {
        workspaceId: ctx.caller.workspaceId,
        ...(reason ? { reason } : {}),
        ...(withRotation ? { withRotation: true } : {}),
      }),
  }),
}));
