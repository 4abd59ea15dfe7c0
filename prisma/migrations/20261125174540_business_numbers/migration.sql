-- AlterTable
ALTER TABLE "opt_outs" ADD COLUMN     "business" TEXT;

-- CreateTable
CREATE TABLE "business_numbers" (
    "id" UUID NOT NULL,
    "business" TEXT NOT NULL,
    "number" TEXT NOT NULL,
    "carrier" TEXT NOT NULL,
    "messaging_service_sid" TEXT,
    "credentials" TEXT,
    "active_slot" BOOLEAN DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(3),

    CONSTRAINT "business_numbers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "business_numbers_business_active_slot_idx" ON "business_numbers"("business", "active_slot");

-- CreateIndex
CREATE UNIQUE INDEX "business_numbers_number_active_slot_key" ON "business_numbers"("number", "active_slot");

-- CreateIndex
CREATE INDEX "messages_phone_business_created_at_idx" ON "messages"("phone", "business", "created_at");

-- CreateIndex
CREATE INDEX "opt_outs_business_phone_idx" ON "opt_outs"("business", "phone");
