-- CreateEnum
CREATE TYPE "message_direction" AS ENUM ('outbound', 'inbound');

-- CreateEnum
CREATE TYPE "opt_out_status" AS ENUM ('opted_out', 'opted_in');

-- AlterEnum
-- This migration adds more than one value to an enum.
-- With PostgreSQL versions 11 and earlier, this is not possible
-- in a single migration. This can be worked around by creating
-- multiple migrations, each migration adding only one value to
-- the enum.


ALTER TYPE "message_status" ADD VALUE 'delivered';
ALTER TYPE "message_status" ADD VALUE 'undelivered';
ALTER TYPE "message_status" ADD VALUE 'suppressed';
ALTER TYPE "message_status" ADD VALUE 'received';

-- AlterTable
ALTER TABLE "clients" ADD COLUMN     "timezone" TEXT;

-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "deferred_until" TIMESTAMPTZ(3),
ADD COLUMN     "delivered_at" TIMESTAMPTZ(3),
ADD COLUMN     "direction" "message_direction" NOT NULL DEFAULT 'outbound',
ADD COLUMN     "encoding" TEXT,
ADD COLUMN     "error_code" TEXT,
ADD COLUMN     "inbound_key" TEXT,
ADD COLUMN     "price" TEXT,
ADD COLUMN     "price_unit" TEXT,
ADD COLUMN     "receipt_at" TIMESTAMPTZ(3),
ADD COLUMN     "received_at" TIMESTAMPTZ(3),
ADD COLUMN     "segments" INTEGER,
ADD COLUMN     "send_window" JSONB,
ADD COLUMN     "sender" TEXT,
ADD COLUMN     "suppressed_at" TIMESTAMPTZ(3),
ADD COLUMN     "suppressed_reason" TEXT,
ALTER COLUMN "workflow_id" DROP NOT NULL;

-- CreateTable
CREATE TABLE "opt_outs" (
    "sender" TEXT NOT NULL,
    "phone" TEXT NOT NULL,
    "status" "opt_out_status" NOT NULL,
    "source" TEXT NOT NULL,
    "detail" TEXT,
    "opted_out_at" TIMESTAMPTZ(3) NOT NULL,
    "opted_in_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "opt_outs_pkey" PRIMARY KEY ("sender","phone")
);

-- CreateTable
CREATE TABLE "unmatched_inbound" (
    "id" UUID NOT NULL,
    "provider" TEXT NOT NULL,
    "inbound_key" TEXT NOT NULL,
    "sender" TEXT NOT NULL,
    "phone" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "unmatched_inbound_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "opt_outs_phone_idx" ON "opt_outs"("phone");

-- CreateIndex
CREATE UNIQUE INDEX "unmatched_inbound_inbound_key_key" ON "unmatched_inbound"("inbound_key");

-- CreateIndex
CREATE INDEX "unmatched_inbound_created_at_idx" ON "unmatched_inbound"("created_at");

-- CreateIndex
CREATE UNIQUE INDEX "messages_inbound_key_key" ON "messages"("inbound_key");

-- CreateIndex
CREATE INDEX "messages_provider_provider_ref_idx" ON "messages"("provider", "provider_ref");

-- CreateIndex
CREATE INDEX "messages_phone_sender_created_at_idx" ON "messages"("phone", "sender", "created_at");

-- CreateIndex
CREATE INDEX "messages_client_pk_created_at_idx" ON "messages"("client_pk", "created_at");
