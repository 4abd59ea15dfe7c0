-- Issue 37: a reply to a business number that more than one of its users could own is kept unmatched
-- for that business (listed at GET /unmatched-inbound), and the record of an erased CRM lead is
-- remembered by a digest only, so that its later events are ignored.
ALTER TABLE "unmatched_inbound" ADD COLUMN "business" TEXT,
ADD COLUMN "ambiguous" BOOLEAN NOT NULL DEFAULT false;

CREATE INDEX "unmatched_inbound_business_created_at_idx" ON "unmatched_inbound"("business", "created_at");

CREATE TABLE "crm_erased_records" (
    "business" TEXT NOT NULL,
    "crm" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "erased_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "crm_erased_records_pkey" PRIMARY KEY ("business","crm","digest")
);
