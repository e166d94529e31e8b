-- DropIndex
DROP INDEX "WebhookDelivery_eventId_endpointId_key";

-- DropIndex
DROP INDEX "WebhookDelivery_status_nextAttemptAt_idx";

-- The dispatcher's claim and next-due lookups read only unsettled deliveries: a partial index holds
-- just those (settled ones leave it), which the schema language cannot declare.
CREATE INDEX "WebhookDelivery_due_idx" ON "WebhookDelivery" ("nextAttemptAt") WHERE status IN ('pending', 'retrying');

-- Room in each page for a claim's new row version (it changes leaseUntil only): a HOT update, with no
-- new index entries.
ALTER TABLE "WebhookDelivery" SET (fillfactor = 80);
