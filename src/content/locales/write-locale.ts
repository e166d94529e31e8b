// The locale a write names (issue 56): posts' translations and categories', tags' and authors' names are
// written per locale; absent, the default locale's (the record's own columns).
import { InvalidInputError } from "../../domain/errors.ts";
import type { Prisma } from "../../generated/prisma/client.ts";
import { requireLocaleCode } from "./locale-rules.ts";

/** The locale a write names, as the workspace has it. */
export interface WriteLocale {
  code: string;
  isDefault: boolean;
}

/**
 * The workspace's locale `locale` names (canonicalised), its row read FOR SHARE so that it cannot become
 * the default (locales.ts) before this write commits; null when none is named (the default). Malformed
 * or not one of the workspace's: a 400 naming `locale`.
 */
export async function localeOfWrite(
  tx: Prisma.TransactionClient,
  workspaceId: string,
  locale: string | null | undefined,
): Promise<WriteLocale | null> {
  if (locale === undefined || locale === null) return null;
  const code = requireLocaleCode("locale", locale);
  const [row] = await tx.$queryRawUnsafe<WriteLocale[]>(
    `SELECT code, "isDefault" FROM "Locale" WHERE "workspaceId" = $1 AND code = $2 FOR SHARE`,
    workspaceId,
    code,
  );
  if (!row)
    throw new InvalidInputError("Unknown locale", [
      { field: "locale", message: `"${code}" is not a locale of this workspace (see /v1/locales)` },
    ]);
  return row;
}
