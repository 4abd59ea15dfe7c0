-- CreateIndex
CREATE INDEX "webhook_subscriptions_owner_id_idx" ON "webhook_subscriptions"("owner_id");
