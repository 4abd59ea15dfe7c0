-- CreateEnum
CREATE TYPE "assignment_status" AS ENUM ('active', 'expired', 'unassigned');

-- CreateEnum
CREATE TYPE "message_status" AS ENUM ('scheduled', 'sending', 'sent', 'failed', 'canceled');

-- CreateTable
CREATE TABLE "clients" (
    "pk" UUID NOT NULL,
    "business" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT,
    "phone" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "clients_pkey" PRIMARY KEY ("pk")
);

-- CreateTable
CREATE TABLE "agents" (
    "pk" UUID NOT NULL,
    "business" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("pk")
);

-- CreateTable
CREATE TABLE "assignments" (
    "id" UUID NOT NULL,
    "client_pk" UUID NOT NULL,
    "agent_pk" UUID NOT NULL,
    "status" "assignment_status" NOT NULL DEFAULT 'active',
    "active_slot" BOOLEAN DEFAULT true,
    "dt_until" TIMESTAMPTZ(3) NOT NULL,
    "notes" TEXT,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "workflow_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(3),

    CONSTRAINT "assignments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "messages" (
    "id" UUID NOT NULL,
    "business" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "client_pk" UUID,
    "message_type" TEXT NOT NULL,
    "phone" TEXT NOT NULL,
    "name" TEXT,
    "text" TEXT NOT NULL,
    "status" "message_status" NOT NULL DEFAULT 'scheduled',
    "send_at" TIMESTAMPTZ(3) NOT NULL,
    "workflow_id" TEXT NOT NULL,
    "idempotency_key" TEXT,
    "request_hash" TEXT,
    "provider" TEXT,
    "provider_ref" TEXT,
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "dispatched_at" TIMESTAMPTZ(3),
    "sent_at" TIMESTAMPTZ(3),
    "canceled_at" TIMESTAMPTZ(3),

    CONSTRAINT "messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "log_deliveries" (
    "message_id" UUID NOT NULL,
    "to" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "delivered_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "log_deliveries_pkey" PRIMARY KEY ("message_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "clients_business_owner_id_id_key" ON "clients"("business", "owner_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "agents_business_owner_id_id_key" ON "agents"("business", "owner_id", "id");

-- CreateIndex
CREATE INDEX "assignments_client_pk_status_idx" ON "assignments"("client_pk", "status");

-- CreateIndex
CREATE INDEX "assignments_agent_pk_idx" ON "assignments"("agent_pk");

-- CreateIndex
CREATE UNIQUE INDEX "assignments_client_pk_agent_pk_active_slot_key" ON "assignments"("client_pk", "agent_pk", "active_slot");

-- CreateIndex
CREATE INDEX "messages_business_owner_id_created_at_idx" ON "messages"("business", "owner_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "messages_business_owner_id_idempotency_key_key" ON "messages"("business", "owner_id", "idempotency_key");

-- AddForeignKey
ALTER TABLE "assignments" ADD CONSTRAINT "assignments_client_pk_fkey" FOREIGN KEY ("client_pk") REFERENCES "clients"("pk") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "assignments" ADD CONSTRAINT "assignments_agent_pk_fkey" FOREIGN KEY ("agent_pk") REFERENCES "agents"("pk") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_client_pk_fkey" FOREIGN KEY ("client_pk") REFERENCES "clients"("pk") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "log_deliveries" ADD CONSTRAINT "log_deliveries_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;
