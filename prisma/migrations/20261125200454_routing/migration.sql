-- AlterTable
ALTER TABLE "assignments" ADD COLUMN     "routed_by" JSONB;

-- CreateTable
CREATE TABLE "teams" (
    "pk" UUID NOT NULL,
    "business" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT,
    "members" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "teams_pkey" PRIMARY KEY ("pk")
);

-- CreateTable
CREATE TABLE "routing_policies" (
    "pk" UUID NOT NULL,
    "business" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "settings" JSONB NOT NULL,
    "strategy_state" JSONB NOT NULL DEFAULT '{"last":null,"credits":{}}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "routing_policies_pkey" PRIMARY KEY ("pk")
);

-- CreateTable
CREATE TABLE "routing_decisions" (
    "id" UUID NOT NULL,
    "business" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "policy_pk" UUID NOT NULL,
    "version" INTEGER NOT NULL,
    "client_pk" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "waiting_slot" BOOLEAN,
    "agent_pk" UUID,
    "assignment_id" UUID,
    "dt_until" TIMESTAMPTZ(3),
    "candidates" JSONB NOT NULL DEFAULT '[]',
    "notes" TEXT,
    "idempotency_key" TEXT,
    "request_hash" TEXT,
    "queued_at" TIMESTAMPTZ(3),
    "decided_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "routing_decisions_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "teams_business_owner_id_id_key" ON "teams"("business", "owner_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "routing_policies_business_owner_id_id_key" ON "routing_policies"("business", "owner_id", "id");

-- CreateIndex
CREATE INDEX "routing_decisions_policy_pk_status_queued_at_idx" ON "routing_decisions"("policy_pk", "status", "queued_at");

-- CreateIndex
CREATE INDEX "routing_decisions_client_pk_policy_pk_status_idx" ON "routing_decisions"("client_pk", "policy_pk", "status");

-- CreateIndex
CREATE INDEX "routing_decisions_business_owner_id_status_idx" ON "routing_decisions"("business", "owner_id", "status");

-- CreateIndex
CREATE UNIQUE INDEX "routing_decisions_policy_pk_client_pk_waiting_slot_key" ON "routing_decisions"("policy_pk", "client_pk", "waiting_slot");

-- CreateIndex
CREATE UNIQUE INDEX "routing_decisions_business_owner_id_idempotency_key_key" ON "routing_decisions"("business", "owner_id", "idempotency_key");

-- AddForeignKey
ALTER TABLE "routing_decisions" ADD CONSTRAINT "routing_decisions_policy_pk_fkey" FOREIGN KEY ("policy_pk") REFERENCES "routing_policies"("pk") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "routing_decisions" ADD CONSTRAINT "routing_decisions_client_pk_fkey" FOREIGN KEY ("client_pk") REFERENCES "clients"("pk") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "routing_decisions" ADD CONSTRAINT "routing_decisions_agent_pk_fkey" FOREIGN KEY ("agent_pk") REFERENCES "agents"("pk") ON DELETE SET NULL ON UPDATE CASCADE;
