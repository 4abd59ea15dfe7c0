-- Issue 51: each number's A2P registration (10DLC brand and campaign, toll-free verification) as its
-- carrier last said it (docs/design.md, "Number registration (10DLC, toll-free)").

-- CreateTable
CREATE TABLE "a2p_registrations" (
    "number" TEXT NOT NULL,
    "carrier" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "brand_id" TEXT,
    "brand_status" TEXT,
    "campaign_id" TEXT,
    "campaign_use_case" TEXT,
    "campaign_status" TEXT,
    "toll_free_status" TEXT,
    "read_at" TIMESTAMPTZ(3) NOT NULL,
    "changed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "a2p_registrations_pkey" PRIMARY KEY ("number")
);

-- CreateIndex
CREATE INDEX "a2p_registrations_read_at_idx" ON "a2p_registrations"("read_at");
