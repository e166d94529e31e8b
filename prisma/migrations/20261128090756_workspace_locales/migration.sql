-- A workspace's locales (issue 56, its first step: the locales alone, no translations yet), and the
-- setting that will decide whether slugs are unique per locale or across them.
-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN     "slugsUniqueAcrossLocales" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "Locale" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "isDefault" BOOLEAN NOT NULL DEFAULT false,
    "fallback" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Locale_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "Locale_workspaceId_code_key" ON "Locale"("workspaceId", "code");

-- AddForeignKey
ALTER TABLE "Locale" ADD CONSTRAINT "Locale_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Exactly one default locale per workspace: this index allows at most one (the schema language has no
-- partial indexes, so it lives here; prisma/schema.prisma names it), and the writes never leave none
-- (src/content/locales/locales.ts).
CREATE UNIQUE INDEX "Locale_workspaceId_default_key" ON "Locale" ("workspaceId") WHERE "isDefault";

-- Every existing workspace's content is in English until told otherwise: one default locale, `en`.
-- The id has a cuid's shape (a `c` and 24 lowercase base-36 characters), as the records Prisma makes.
INSERT INTO "Locale" ("id", "workspaceId", "code", "name", "isDefault", "fallback", "updatedAt")
SELECT 'c' || substr(md5(random()::text || w."id"), 1, 24), w."id", 'en', 'English', true, ARRAY[]::TEXT[], CURRENT_TIMESTAMP
FROM "Workspace" w;
