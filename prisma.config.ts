// Used by the Prisma CLI only (generate; migrate deploy where its schema engine is available).
// The service itself reads its configuration in src/config.ts.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  datasource: { url: process.env.DATABASE_URL ?? "postgresql://localhost/unused" },
});
