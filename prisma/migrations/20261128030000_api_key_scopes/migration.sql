-- API keys with scopes, expiry, rotation and last use (issue 57). Keys made before scopes existed keep
-- what they could do: a private key every scope (`*`, which also covers scopes added later), a public key
-- the published content.
-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN "name" TEXT NOT NULL DEFAULT '',
ADD COLUMN "scopes" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN "expiresAt" TIMESTAMP(3),
ADD COLUMN "lastUsedAt" TIMESTAMP(3),
ADD COLUMN "lastUsedFrom" TEXT,
ADD COLUMN "revokedReason" TEXT,
ADD COLUMN "rotatedFromId" TEXT,
ADD COLUMN "graceEndsAt" TIMESTAMP(3);

UPDATE "ApiKey" SET "scopes" = CASE WHEN "kind" = 'private' THEN ARRAY['*'] ELSE ARRAY['content:read'] END;
