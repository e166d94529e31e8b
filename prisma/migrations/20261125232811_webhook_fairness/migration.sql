-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN     "backoffUntil" TIMESTAMP(3),
ADD COLUMN     "disabledAt" TIMESTAMP(3),
ADD COLUMN     "failuresInRow" INTEGER NOT NULL DEFAULT 0;
