-- AlterTable
ALTER TABLE "ApiKey" ADD COLUMN     "allowedAddresses" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "allowedOrigins" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN     "expiryRecordedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN     "privateKeyMaxLifetimeDays" INTEGER;
