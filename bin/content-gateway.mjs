#!/usr/bin/env node
// `npx content-gateway …` (package.json "bin"), `npm run cli -- …`: the CLI, compiled (scripts/build-cli.mjs),
// rebuilt first when its sources changed since the last build.
import { pathToFileURL } from "node:url";
import { cliEntry, ensureCliBuilt } from "../scripts/build-cli.mjs";

await ensureCliBuilt();
await import(pathToFileURL(cliEntry).href);
