// Names for prepared statements, derived from their text, so each pooled connection parses and plans a
// statement once. Without names PostgreSQL plans every query anew, and planning the joined post-list
// query cost more than running it (a CPU profile of `npm run bench -- --profile`).
import { createHash } from "node:crypto";

/**
 * Statements with more parameters than this stay unnamed. Prisma writes `in` lists as one parameter per
 * value (`IN ($1, …, $n)`) and batches as one per column and row, so their texts vary with the data;
 * named, each length would stay prepared on every connection for as long as it lives.
 */
const MAX_NAMED_PARAMETERS = 32;

const names = new Map<string, string | undefined>();

/**
 * The same name for the same text, in every connection and for every caller (Prisma or raw SQL); no
 * name (an unnamed statement, planned on each run) for texts that vary with the data.
 */
export function statementName(sql: string): string | undefined {
  if (names.has(sql)) return names.get(sql);
  const parameters = new Set(sql.match(/\$\d+/g)).size;
  const name =
    parameters > MAX_NAMED_PARAMETERS
      ? undefined
      : `s_${createHash("sha1").update(sql).digest("hex").slice(0, 24)}`;
  // Statement texts are few (one per query shape); the bound only guards against runaway growth.
  if (names.size >= 5_000) names.clear();
  names.set(sql, name);
  return name;
}
