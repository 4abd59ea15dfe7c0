-- Issue 48: an opt-out outlives the erasure of the client at its phone, and stays visible to the users who
-- had texted that phone.

-- CreateTable
CREATE TABLE "opt_out_holders" (
    "business" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "phone" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "opt_out_holders_pkey" PRIMARY KEY ("business","owner_id","phone")
);

-- CreateIndex
CREATE INDEX "opt_out_holders_phone_idx" ON "opt_out_holders"("phone");
