-- AlterTable
ALTER TABLE "WebhookEndpoint" ADD COLUMN     "fannedOutTo" BIGINT NOT NULL DEFAULT 0;

-- Until now every event's deliveries were made in its own write: the existing endpoints are fanned out
-- up to the log's head already.
UPDATE "WebhookEndpoint" SET "fannedOutTo" = COALESCE((SELECT max(position) FROM "Event"), 0);

-- Nothing reads deliveries by createdAt alone (the delivery log reads endpointId, createdAt), and every
-- delivery paid for an entry here twice: when made and when settled (not a HOT update).
DROP INDEX "WebhookDelivery_createdAt_idx";
