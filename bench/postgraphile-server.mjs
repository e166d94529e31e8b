// PostGraphile 5 (the `amber` preset, as its documentation starts a project) over the bench's
// PostgreSQL schema: the peer `npm run bench:peers` compares the uncached read path with (issue 39).
// Plain JavaScript: PostGraphile 5 needs Node 22 or later, and runs on that Node without tsx.
import { createServer } from "node:http";
import { postgraphile } from "postgraphile";
import { makePgService } from "postgraphile/adaptors/pg";
import { grafserv } from "postgraphile/grafserv/node";
import { PostGraphileAmberPreset } from "postgraphile/presets/amber";

const { DATABASE_URL, DATABASE_SCHEMA, PORT, HOST, POSTGRAPHILE_POOL_SIZE } = process.env;
const preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [
    makePgService({
      connectionString: DATABASE_URL,
      schemas: [DATABASE_SCHEMA ?? "public"],
      // The service's pool size (DATABASE_POOL_SIZE's default), so neither has more backends.
      poolConfig: { max: Number(POSTGRAPHILE_POOL_SIZE ?? 10) },
    }),
  ],
  grafserv: { graphiql: false },
};
const serv = postgraphile(preset).createServ(grafserv);
const handle = serv.createHandler();
const server = createServer((req, res) => {
  if (req.url === "/ready") {
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    return;
  }
  handle(req, res);
});
// Plans are built on first use; the bench warms each route before it measures.
server.keepAliveTimeout = 65_000;
server.listen(Number(PORT), HOST ?? "127.0.0.1");
process.on("SIGTERM", () => server.close(() => process.exit(0)));
