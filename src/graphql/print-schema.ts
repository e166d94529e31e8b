// The committed schema.graphql is this text, so tooling can read the API without a running server.
import { lexicographicSortSchema, printSchema } from "graphql";
import { schema } from "./executable-schema.ts";

export function printSchemaFile(): string {
  return `# Generated from the Pothos schema by \`npm run schema:print\`. Do not edit.\n\n${printSchema(lexicographicSortSchema(schema))}\n`;
}
