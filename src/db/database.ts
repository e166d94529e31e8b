// Opens the one database the service uses: embedded PGlite (default) or a PostgreSQL server.
// Both go through a Prisma driver adapter, so everything above this file runs one code path.
// What a database is and how it is asked for are database-types.ts; each store opens in a file of its
// own: a PostgreSQL server (server-database.ts), the embedded data folder and PGlite in memory
// (embedded-database.ts), their clients made alike (prisma-client.ts).
import type { Database, DatabaseConfig, OpenDatabaseOptions } from "./database-types.ts";
import { openEmbeddedDatabase, openMemoryDatabase } from "./embedded-database.ts";
import { openServerDatabase } from "./server-database.ts";

export type { Database, DatabaseConfig, OpenDatabaseOptions } from "./database-types.ts";

export async function openDatabase(
  config: DatabaseConfig,
  options: OpenDatabaseOptions = {},
): Promise<Database> {
  if (config.kind === "postgres") return openServerDatabase(config, options);
  if (config.kind === "embedded") return openEmbeddedDatabase(config, options);
  return openMemoryDatabase(config, options);
}
