// Draft previews: `createPostPreview` and `revokePostPreviews` (private keys), and what `post(identifier:,
// preview:)` (post.ts) asks before it shows a post through a token. The rules are
// src/content/posts/post-previews.ts's; here are only who may call, the secret, and PREVIEW_URL.
import {
  type IssuedPreview,
  issuePostPreview,
  previewedPostId,
  previewUrl,
  revokePostPreviews,
} from "../../content/posts/post-previews.ts";
import { builder } from "../builder.ts";
import type { GraphQLContext } from "../context.ts";
import { previewsUnavailableError } from "../errors.ts";
import { DeleteResult } from "./enums.ts";

export const PostPreview = builder
  .objectRef<IssuedPreview & { url: string | null }>("PostPreview")
  .implement({
    description:
      "A signed, expiring grant to read one post as it is now (draft or scheduled): post(identifier:, preview: token) with any key of the workspace",
    fields: (t) => ({
      postId: t.exposeID("postId"),
      locale: t.field({
        type: "LocaleCode",
        nullable: true,
        description: "The translation the token previews; null: the default locale's",
        resolve: (preview) => preview.locale,
      }),
      token: t.exposeString("token", {
        description: "Pass as `preview` (GraphQL) or `?preview=` (REST); URL-safe as it is",
      }),
      expiresAt: t.field({ type: "DateTime", resolve: (preview) => preview.expiresAt }),
      url: t.string({
        nullable: true,
        description: "PREVIEW_URL with {token}, {id} and {slug} filled in; null when PREVIEW_URL is not set",
        resolve: (preview) => preview.url,
      }),
    }),
  });

function previewSecret(ctx: GraphQLContext): string {
  const secret = ctx.services.previewSecret;
  if (!secret) throw previewsUnavailableError();
  return secret;
}

/** The post (and translation) a preview read may show (see previewedPostId for what the token must be). */
export function previewGrantedPost(
  ctx: GraphQLContext,
  identifier: string,
  token: string,
): Promise<{ postId: string; locale: string | null }> {
  const secret = previewSecret(ctx);
  return previewedPostId(ctx.prisma, ctx.caller.workspaceId, identifier, token, { secret }, new Date());
}

builder.mutationFields((t) => ({
  createPostPreview: t.field({
    type: PostPreview,
    description:
      "A preview token for a post, valid for PREVIEW_TTL (private keys only); revokePostPreviews ends it sooner",
    args: {
      identifier: t.arg.string({ required: true, description: "The post's id or slug" }),
      locale: t.arg({
        type: "LocaleCode",
        required: false,
        description:
          "A token for this translation: it previews that translation's draft; absent: the default locale's",
      }),
    },
    resolve: async (_root, args, ctx) => {
      const { ttlMs, urlTemplate } = ctx.services.config.preview;
      const issued = await issuePostPreview(
        ctx.prisma,
        ctx.caller.workspaceId,
        args.identifier,
        { secret: previewSecret(ctx), ttlMs },
        new Date(),
        args.locale,
      );
      return { ...issued, url: urlTemplate ? previewUrl(urlTemplate, issued) : null };
    },
  }),
  revokePostPreviews: t.field({
    type: DeleteResult,
    description:
      "Ends every preview token made so far for a post (private keys only); answers the post's id. New tokens work again.",
    args: {
      identifier: t.arg.string({ required: true, description: "The post's id or slug" }),
      locale: t.arg({
        type: "LocaleCode",
        required: false,
        description: "Only this translation's tokens; absent: the default locale's",
      }),
    },
    resolve: async (_root, args, ctx) => {
      return {
        id: await revokePostPreviews(ctx.prisma, ctx.caller.workspaceId, args.identifier, args.locale),
      };
    },
  }),
}));
