-- Issue 51: RCS with the carrier SMS fallback. The suggested replies of a message (outbound: offered,
-- inbound: the one tapped) and the channel its receipts say delivered it, the RCS agent of a number, by
-- which the carrier names it in RCS callbacks.

-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "suggestions" JSONB,
ADD COLUMN     "delivered_channel" TEXT;

-- AlterTable
ALTER TABLE "business_numbers" ADD COLUMN     "rcs_agent" TEXT;

-- CreateIndex
CREATE INDEX "business_numbers_rcs_agent_idx" ON "business_numbers"("rcs_agent");
