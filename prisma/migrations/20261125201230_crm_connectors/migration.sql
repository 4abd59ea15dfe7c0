-- CreateTable
CREATE TABLE "crm_connectors" (
    "id" UUID NOT NULL,
    "business" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "crm" TEXT NOT NULL,
    "agents" TEXT[],
    "policy" TEXT,
    "settings" JSONB NOT NULL,
    "secrets" TEXT NOT NULL,
    "agent_map" JSONB NOT NULL,
    "follow_crm_owner" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "crm_connectors_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "crm_inbound_events" (
    "id" UUID NOT NULL,
    "business" TEXT NOT NULL,
    "crm" TEXT NOT NULL,
    "event_key" TEXT NOT NULL,
    "record_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "owner_value" TEXT,
    "occurred_at" TIMESTAMPTZ(3),
    "outcome" TEXT,
    "processed_at" TIMESTAMPTZ(3),
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "crm_inbound_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "crm_leads" (
    "business" TEXT NOT NULL,
    "crm" TEXT NOT NULL,
    "record_id" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "agents" TEXT[],
    "crm_owner_id" TEXT,
    "assigned_at" TIMESTAMPTZ(3),
    "write_status" TEXT NOT NULL DEFAULT 'pending',
    "write_error" TEXT,
    "written_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "crm_leads_pkey" PRIMARY KEY ("business","crm","record_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "crm_connectors_business_crm_key" ON "crm_connectors"("business", "crm");

-- CreateIndex
CREATE INDEX "crm_inbound_events_business_crm_record_id_processed_at_idx" ON "crm_inbound_events"("business", "crm", "record_id", "processed_at");

-- CreateIndex
CREATE INDEX "crm_inbound_events_processed_at_received_at_idx" ON "crm_inbound_events"("processed_at", "received_at");

-- CreateIndex
CREATE UNIQUE INDEX "crm_inbound_events_business_crm_event_key_key" ON "crm_inbound_events"("business", "crm", "event_key");
