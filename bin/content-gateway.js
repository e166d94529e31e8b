#!/usr/bin/env node
// `npx content-gateway …` in the project folder: the CLI (src/cli/main.ts), its TypeScript compiled on
// the fly by tsx's loader in this same process.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/main.ts");
