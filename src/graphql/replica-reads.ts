// A query's reads on a replica when one is fresh enough for it (src/db/replica-router.ts): the request's
// Prisma client, raw SQL and loaders are swapped for the chosen target's before the first resolver
// runs. Called for REST's in-process queries and /graphql queries only (plugins/use-replica-reads.ts):
// mutations, their read-backs and subscriptions keep the primary's.
import { parseLsn } from "../db/wal-position.ts";
import type { GraphQLContext } from "./context.ts";
import { createLoaders } from "./loaders.ts";

/** The request header a client sends back with the position of its own last write (docs/read-replicas.md). */
export const WRITE_POSITION_HEADER = "write-position";

/** The client's last write position from its request; absent or malformed: none. */
export function clientWritePosition(
  headers: Record<string, string | string[] | undefined> | undefined,
): bigint | null {
  const value = headers?.[WRITE_POSITION_HEADER];
  return parseLsn(Array.isArray(value) ? value[0] : value);
}

export async function routeReads(ctx: GraphQLContext): Promise<void> {
  const router = ctx.services.replicas;
  if (!router || ctx.readsRouted) return;
  ctx.readsRouted = true;
  const target = await router.readTarget(ctx.writePosition);
  if (target.name === "primary") return;
  ctx.prisma = target.prisma;
  ctx.sql = target.sql;
  ctx.loaders = createLoaders(target.sql);
}
