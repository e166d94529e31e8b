-- Records of stored image variants (issue 60): a variant is served only while its record exists, and the
-- record goes with its media item (ON DELETE CASCADE), so a variant stored after its original was deleted
-- is never served by any instance. Last use and size bound the variants kept per original. A transform
-- URL names its original by storage key, hence the index on "Media"."storageKey".
-- CreateTable
CREATE TABLE "MediaVariant" (
    "key" TEXT NOT NULL,
    "mediaId" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "MediaVariant_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "MediaVariant_mediaId_lastUsedAt_idx" ON "MediaVariant"("mediaId", "lastUsedAt");

-- CreateIndex
CREATE INDEX "Media_storageKey_idx" ON "Media"("storageKey");

-- AddForeignKey
ALTER TABLE "MediaVariant" ADD CONSTRAINT "MediaVariant_mediaId_fkey" FOREIGN KEY ("mediaId") REFERENCES "Media"("id") ON DELETE CASCADE ON UPDATE CASCADE;
