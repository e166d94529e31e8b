// Names for prepared statements, derived from their text, so each pooled connection parses and plans a
// statement once. Without names PostgreSQL plans every query anew, and planning the joined post-list
// query cost more than running it (the benchmark's profile, bench/README.md).
import { createHash } from "node:crypto";

const names = new Map<string, string>();

/** The same name for the same text, in every connection and for every caller (Prisma or raw SQL). */
export function statementName(sql: string): string {
  let name = names.get(sql);
  if (!name) {
    name = `s_${createHash("sha1").update(sql).digest("hex").slice(0, 24)}`;
    // Statement texts are few (one per query shape); the bound only guards against runaway growth.
    if (names.size >= 5_000) names.clear();
    names.set(sql, name);
  }
  return name;
}
