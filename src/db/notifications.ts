// LISTEN on PostgreSQL: how an instance hears that another one (or the CLI) committed something it
// should act on, without polling. A NOTIFY is delivered at COMMIT to every connection listening on its
// channel; channels are per schema (the name ends with the schema's), so deployments sharing one
// database in different schemas do not wake each other. The listening connection is a client of its
// own, outside the pool (a pooled connection would be handed to queries and lose its LISTEN). If it
// drops, it reconnects, and calls `onNotify` once connected again: notifications sent while it was
// away are lost, so the listener must look for itself.
import pg from "pg";

export interface Listening {
  close(): Promise<void>;
}

const RECONNECT_MS = 1_000;

export async function listenOnPostgres(
  options: { url: string; schema?: string },
  channelPrefix: string,
  onNotify: () => void,
  onError: (error: unknown) => void,
): Promise<Listening> {
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({
      connectionString: options.url,
      ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
    });
    next.on("notification", () => onNotify());
    next.on("error", (error) => {
      onError(error);
      reconnectSoon(next);
    });
    next.on("end", () => reconnectSoon(next));
    await next.connect();
    const { rows } = await next.query<{ schema: string }>("SELECT current_schema() AS schema");
    const channel = `${channelPrefix}${rows[0]?.schema ?? "public"}`;
    await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    client = next;
  };

  const reconnectSoon = (dropped: pg.Client) => {
    if (client !== dropped) return;
    client = null;
    dropped.end().catch(() => {});
    scheduleReconnect();
  };

  const scheduleReconnect = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().then(onNotify, (error: unknown) => {
        onError(error);
        scheduleReconnect();
      });
    }, RECONNECT_MS);
    retry.unref();
  };

  await connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retry);
      await client?.end().catch(() => {});
    },
  };
}
