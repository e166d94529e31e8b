// `npm start`: the compiled server (dist/server, scripts/build-server.mjs) on plain node. Before it, in
// this process and in a few milliseconds when nothing changed: the Prisma client is generated again
// if the schema or Prisma changed (scripts/prisma-generate.mjs), and the server rebuilt if a file under
// src/ is newer than its build (well under a second). `npm run dev` runs the TypeScript sources instead.
import { pathToFileURL } from "node:url";
import { ensureServerBuilt, serverEntry } from "./build-server.mjs";
import { generate, isGeneratedClientCurrent } from "./prisma-generate.mjs";

if (!isGeneratedClientCurrent()) {
  const status = generate();
  if (status !== 0) process.exit(status);
}
await ensureServerBuilt();
await import(pathToFileURL(serverEntry).href);
