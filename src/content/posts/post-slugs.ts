// The slug rule of a workspace's posts across locales (issue 56). The database keeps every post slug in
// PostSlug (triggers of migration 20261128124420_post_translations) and its unique index decides: a
// slug's scope is its translation's locale, or '' for the default locale's slugs and, when the workspace
// makes slugs unique across its locales, for every slug. Changing that setting rewrites the scopes of
// the workspace's translation slugs in the same statement that checks them.
import { ConflictError } from "../../domain/errors.ts";
import type { WriteClient } from "../writer.ts";

/**
 * Puts the workspace's translation slugs in the scopes `acrossLocales` asks for. Run after the setting's
 * own update in one unit of work: the workspace row that update locks makes every slug write wait (the
 * triggers read the setting FOR SHARE), and every earlier one has committed, so the check below sees
 * every slug and none lands in the old scope meanwhile. A slug that several locales share is a 409 when
 * slugs are to be unique across locales, and nothing changes; the unique index stays the last word.
 */
export async function rescopePostSlugs(
  tx: WriteClient,
  workspaceId: string,
  acrossLocales: boolean,
): Promise<void> {
  if (acrossLocales) {
    const shared = await tx.$queryRawUnsafe<{ slug: string }[]>(
      `SELECT slug FROM "PostSlug" WHERE "workspaceId" = $1 GROUP BY slug HAVING count(*) > 1 ORDER BY slug LIMIT 5`,
      workspaceId,
    );
    if (shared.length > 0)
      throw new ConflictError(
        `Post slugs are used in several locales (${shared.map((row) => row.slug).join(", ")}); make them unique first`,
        "slugsUniqueAcrossLocales",
      );
  }
  await tx.$executeRawUnsafe(
    `UPDATE "PostSlug" SET scope = CASE WHEN $2 THEN '' ELSE locale END
      WHERE "workspaceId" = $1 AND locale <> '' AND scope <> CASE WHEN $2 THEN '' ELSE locale END`,
    workspaceId,
    acrossLocales,
  );
}
