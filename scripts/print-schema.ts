// Writes schema.graphql from the Pothos schema (`npm run schema:print`); a test fails when it drifts.
import { writeFileSync } from "node:fs";
import { printSchemaFile } from "../src/graphql/print-schema.ts";

writeFileSync(new URL("../schema.graphql", import.meta.url), printSchemaFile());
console.log("schema.graphql written");
