// Draft previews: a private key makes a token that lets anyone holding it (with any key of the
// workspace) read that one post as it is now, whatever its status — and nothing else. The token is
// signed and expires (preview-token.ts); it stops working sooner when its post is deleted (the read
// finds no post) or when the post's previews are revoked: every token carries the post's
// `previewGeneration` of when it was made, and revoking raises that number, so all earlier tokens
// of the post stop matching at once with no list of issued tokens to keep.
//
// Making a token writes nothing. Revoking writes one column through the one writer and names no
// change: no event (a preview is no content; webhooks, the change log and caches have nothing to
// learn), and it leaves `updatedAt` alone, because the post's content did not change.
import { InvalidInputError, NotFoundError, PreviewTokenError } from "../../domain/errors.ts";
import type { PrismaClient } from "../../generated/prisma/client.ts";
import { byIdentifier } from "../identifiers.ts";
import { requireLocaleCode } from "../locales/locale-rules.ts";
import { type ReadClient, write } from "../writer.ts";
import { readPreviewToken, signPreviewToken } from "./preview-token.ts";

export interface PreviewSettings {
  /** HMAC key of the tokens. */
  secret: string;
  /** How long a token opens its post, in milliseconds. */
  ttlMs: number;
}

export interface IssuedPreview {
  postId: string;
  slug: string;
  token: string;
  expiresAt: Date;
  /** The translation previewed; null: the default locale's. */
  locale: string | null;
}

/**
 * The translation a preview write names (issue 56): null for the default locale's (no `locale`, or the
 * default's code), else one of the workspace's other locales. Malformed or unknown: a 400 naming `locale`.
 */
async function previewLocale(
  tx: Pick<ReadClient, "locale">,
  workspaceId: string,
  locale: string | null | undefined,
): Promise<string | null> {
  if (locale === undefined || locale === null) return null;
  const code = requireLocaleCode("locale", locale);
  const row = await tx.locale.findFirst({ where: { workspaceId, code }, select: { isDefault: true } });
  if (!row)
    throw new InvalidInputError("Unknown locale", [
      { field: "locale", message: `"${code}" is not a locale of this workspace (see /v1/locales)` },
    ]);
  return row.isDefault ? null : code;
}

const PREVIEW_SELECT = { id: true, slug: true, previewGeneration: true } as const;

/** A token for the post `identifier` names (id or slug), valid from `now` for the settings' TTL. */
export async function issuePostPreview(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
  settings: PreviewSettings,
  now: Date,
  /** A translation's token (issue 56): it previews that translation, and its revoking is its own. */
  locale?: string | null,
): Promise<IssuedPreview> {
  const code = await previewLocale(prisma, workspaceId, locale);
  const post = await prisma.post.findFirst({
    where: byIdentifier(workspaceId, identifier, "posts"),
    select: {
      ...PREVIEW_SELECT,
      translations: { where: { locale: code ?? "" }, select: { slug: true, previewGeneration: true } },
    },
  });
  if (!post) throw new NotFoundError("Post", identifier);
  const [translation] = post.translations;
  if (code && !translation) throw new NotFoundError("Post translation", `${identifier} (${code})`);
  const expiresAt = new Date(now.getTime() + settings.ttlMs);
  const generation = translation?.previewGeneration ?? post.previewGeneration;
  const token = signPreviewToken(
    { workspaceId, postId: post.id, generation, expiresAt, ...(code ? { locale: code } : {}) },
    settings.secret,
  );
  return { postId: post.id, slug: translation?.slug ?? post.slug, token, expiresAt, locale: code };
}

/** Ends every preview token made so far for the post; answers its id. */
export async function revokePostPreviews(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
  /** Only this translation's tokens (issue 56); absent: the default locale's. */
  locale?: string | null,
): Promise<string> {
  return write(prisma, async (uow) => {
    const code = await previewLocale(uow.tx, workspaceId, locale);
    const post = await uow.tx.post.findFirst({
      where: byIdentifier(workspaceId, identifier, "posts"),
      select: { id: true },
    });
    if (!post) throw new NotFoundError("Post", identifier);
    if (code) {
      const raisedOne = await uow.tx.$executeRaw`
        UPDATE "PostTranslation" SET "previewGeneration" = "previewGeneration" + 1
        WHERE "postId" = ${post.id} AND locale = ${code}`;
      if (raisedOne === 0) throw new NotFoundError("Post translation", `${identifier} (${code})`);
      return post.id;
    }
    // Raw SQL, not Prisma's update: that would also move `updatedAt` (@updatedAt), which is content's.
    const raised = await uow.tx.$executeRaw`
      UPDATE "Post" SET "previewGeneration" = "previewGeneration" + 1 WHERE id = ${post.id}`;
    // No row: a concurrent DELETE was first.
    if (raised === 0) throw new NotFoundError("Post", identifier);
    return post.id;
  });
}

/**
 * The id of the post a preview read may show: the token must be this service's, unexpired, made for
 * a post of the caller's workspace that `identifier` names (its id or its current slug) and not
 * revoked since. Else a PreviewTokenError, or NotFoundError when its post has been deleted.
 */
export async function previewedPostId(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
  token: string,
  settings: Pick<PreviewSettings, "secret">,
  now: Date,
): Promise<{ postId: string; locale: string | null }> {
  const grant = readPreviewToken(token, settings.secret, now);
  const otherPost = new PreviewTokenError("other-post", "This preview token opens another post");
  if (grant.workspaceId !== workspaceId) throw otherPost;
  const locale = grant.locale ?? null;
  const post = await prisma.post.findFirst({
    where: { id: grant.postId, workspaceId },
    select: {
      ...PREVIEW_SELECT,
      translations: { where: { locale: locale ?? "" }, select: { slug: true, previewGeneration: true } },
    },
  });
  if (!post) throw new NotFoundError("Post", identifier);
  const [translation] = post.translations;
  // A translation's token: its translation gone is its post gone, for the token.
  if (locale && !translation) throw new NotFoundError("Post translation", `${identifier} (${locale})`);
  if (identifier !== post.id && identifier !== post.slug && identifier !== translation?.slug) throw otherPost;
  if ((translation?.previewGeneration ?? post.previewGeneration) !== grant.generation)
    throw new PreviewTokenError("revoked", "This preview token has been revoked; ask for a new one");
  return { postId: post.id, locale };
}

/** PREVIEW_URL with its placeholders (`{token}`, `{id}`, `{slug}`) filled in, each percent-encoded. */
export function previewUrl(template: string, preview: IssuedPreview): string {
  const values: Record<string, string> = { token: preview.token, id: preview.postId, slug: preview.slug };
  return template.replace(/\{(token|id|slug)\}/g, (_, name: string) =>
    encodeURIComponent(values[name] ?? ""),
  );
}
