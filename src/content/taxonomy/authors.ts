// Author write rules: profile fields, e-mail, image URL, and socials from a fixed list of platforms.
import { SOCIAL_PLATFORMS } from "../../domain/constants.ts";
import { NotFoundError } from "../../domain/errors.ts";
import type { AuthorWrite, Social } from "../../domain/inputs.ts";
import type { Prisma, PrismaClient } from "../../generated/prisma/client.ts";
import { byIdentifier } from "../identifiers.ts";
import { localeOfWrite } from "../locales/write-locale.ts";
import { orNotFound } from "../or-not-found.ts";
import { isHttpUrl, ProblemList } from "../validation.ts";
import { type ReadClient, write } from "../writer.ts";
import { unlinkPosts } from "./taxonomy.ts";
import { removeTranslation, writeTranslation } from "./taxonomy-translations.ts";

export async function findAuthorId(
  prisma: ReadClient,
  workspaceId: string,
  identifier: string,
): Promise<string> {
  const found = await prisma.author.findFirst({
    where: byIdentifier(workspaceId, identifier, "authors"),
    select: { id: true },
  });
  if (!found) throw new NotFoundError("Author", identifier);
  return found.id;
}

export async function createAuthor(
  prisma: PrismaClient,
  workspaceId: string,
  input: AuthorWrite & { name: string; slug: string },
): Promise<string> {
  check(input).throwIfAny("Invalid author");
  return write(prisma, async (uow) => {
    const row = await uow.tx.author.create({
      data: {
        workspaceId,
        name: input.name,
        slug: input.slug,
        bio: input.bio ?? null,
        role: input.role ?? null,
        email: input.email ?? null,
        image: input.image ?? null,
        socials: toJson(input.socials ?? []),
      },
      select: { id: true },
    });
    uow.changed({ resource: "author", action: "created", id: row.id, workspaceId });
    return row.id;
  });
}

export async function updateAuthor(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
  input: AuthorWrite,
  /** The locale whose name and bio to write (taxonomy-translations.ts); absent: the default's. */
  locale?: string | null,
): Promise<string> {
  const problems = check(input);
  for (const key of ["name", "slug"] as const) if (input[key] === null) problems.add(key, "Cannot be null");
  problems.throwIfAny("Invalid author");
  return write(prisma, async (uow) => {
    const target = await localeOfWrite(uow.tx, workspaceId, locale);
    const id = await findAuthorId(uow.tx, workspaceId, identifier);
    const translated = target !== null && !target.isDefault;
    if (translated)
      await writeTranslation(uow.tx, "author", workspaceId, id, target, {
        name: input.name,
        text: input.bio,
      });
    // Everything but the name and bio is shared by every locale: the author's, whichever locale is named.
    const data = {
      name: translated ? undefined : (input.name ?? undefined),
      slug: input.slug ?? undefined,
      bio: translated ? undefined : input.bio,
      role: input.role,
      email: input.email,
      image: input.image,
      // `socials`, when given, replaces the whole list; null clears it.
      socials: input.socials === undefined ? undefined : toJson(input.socials ?? []),
    };
    const writesOwn = Object.values(data).some((value) => value !== undefined);
    if (!translated || writesOwn)
      await orNotFound(
        uow.tx.author.update({ where: { id }, data, select: { id: true } }),
        "Author",
        identifier,
      );
    // A write of one translation alone concerns that locale; one of the author's own columns, every locale.
    const onlyLocale = translated && !writesOwn ? { locale: target.code } : {};
    uow.changed({ resource: "author", action: "updated", id, workspaceId, ...onlyLocale });
    return id;
  });
}

export async function deleteAuthor(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
  /** Remove only this locale's name and bio (never the default's), not the author. */
  locale?: string | null,
): Promise<string> {
  if (locale !== undefined && locale !== null)
    return write(prisma, async (uow) => {
      const target = await localeOfWrite(uow.tx, workspaceId, locale);
      const id = await findAuthorId(uow.tx, workspaceId, identifier);
      if (target) await removeTranslation(uow.tx, "author", id, identifier, target);
      uow.changed({ resource: "author", action: "updated", id, workspaceId, locale: target?.code });
      return id;
    });
  return write(prisma, async (uow) => {
    // The slug too: the change log records it as the deleted author's last known one.
    const found = await uow.tx.author.findFirst({
      where: byIdentifier(workspaceId, identifier, "authors"),
      select: { id: true, slug: true },
    });
    if (!found) throw new NotFoundError("Author", identifier);
    const { id, slug } = found;
    // The author's posts lose them: each is named a changed post (its event carries the post without
    // the author). The author is locked first, as post writes do (taxonomy.ts, unlinkPosts).
    const unlinked = await unlinkPosts(uow.tx, "Author", "PostAuthor", "authorId", id);
    const { count } = await uow.tx.author.deleteMany({ where: { id } });
    if (count === 0) throw new NotFoundError("Author", identifier);
    uow.changed({ resource: "author", action: "deleted", id, workspaceId, slug });
    for (const { postId } of unlinked)
      uow.changed({ resource: "post", action: "updated", id: postId, workspaceId });
    return id;
  });
}

function check(input: AuthorWrite): ProblemList {
  const problems = new ProblemList()
    .text("name", input.name, { max: 200 })
    .slug("slug", input.slug)
    .text("bio", input.bio, { min: 0, max: 5_000 })
    .text("role", input.role, { min: 0, max: 200 })
    .email("email", input.email)
    .url("image", input.image);
  (input.socials ?? []).forEach((social, index) => {
    if (!(SOCIAL_PLATFORMS as readonly string[]).includes(social.platform)) {
      problems.add(`socials.${index}.platform`, `Must be one of: ${SOCIAL_PLATFORMS.join(", ")}`);
    }
    if (!isHttpUrl(social.url)) problems.add(`socials.${index}.url`, "Must be an absolute http(s) URL");
  });
  return problems;
}

function toJson(socials: readonly Social[]): Prisma.InputJsonValue {
  return socials.map(({ platform, url }) => ({ platform, url }));
}
