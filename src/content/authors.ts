// Author write rules: profile fields, e-mail, image URL, and socials from a fixed list of platforms.
import type { Prisma, PrismaClient } from "../generated/prisma/client.ts";
import { notFoundError } from "../graphql/errors.ts";
import { byIdentifier } from "./post-filters.ts";
import { isHttpUrl, ProblemList } from "./validation.ts";

export const SOCIAL_PLATFORMS = [
  "x",
  "twitter",
  "github",
  "facebook",
  "instagram",
  "youtube",
  "tiktok",
  "linkedin",
  "website",
  "onlyfans",
  "discord",
  "bluesky",
] as const;

export interface Social {
  platform: string;
  url: string;
}

export interface AuthorWrite {
  name?: string | null;
  slug?: string | null;
  bio?: string | null;
  role?: string | null;
  email?: string | null;
  image?: string | null;
  socials?: readonly Social[] | null;
}

export async function findAuthorId(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
): Promise<string> {
  const found = await prisma.author.findFirst({
    where: byIdentifier(workspaceId, identifier),
    select: { id: true },
  });
  if (!found) throw notFoundError("Author", identifier);
  return found.id;
}

export async function createAuthor(
  prisma: PrismaClient,
  workspaceId: string,
  input: AuthorWrite & { name: string; slug: string },
): Promise<string> {
  check(input).throwIfAny("Invalid author");
  const row = await prisma.author.create({
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
  return row.id;
}

export async function updateAuthor(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
  input: AuthorWrite,
): Promise<string> {
  const problems = check(input);
  for (const key of ["name", "slug"] as const) if (input[key] === null) problems.add(key, "Cannot be null");
  problems.throwIfAny("Invalid author");
  const id = await findAuthorId(prisma, workspaceId, identifier);
  await prisma.author.update({
    where: { id },
    data: {
      name: input.name ?? undefined,
      slug: input.slug ?? undefined,
      bio: input.bio,
      role: input.role,
      email: input.email,
      image: input.image,
      // `socials`, when given, replaces the whole list; null clears it.
      socials: input.socials === undefined ? undefined : toJson(input.socials ?? []),
    },
  });
  return id;
}

export async function deleteAuthor(
  prisma: PrismaClient,
  workspaceId: string,
  identifier: string,
): Promise<string> {
  const id = await findAuthorId(prisma, workspaceId, identifier);
  await prisma.author.delete({ where: { id } });
  return id;
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
