-- Issue 48: only a message handed to a carrier answers a conversation. The first text of the client is kept,
-- so that the hand-over of a message accepted after it sets first_response_at, and a conversation not answered
-- yet takes its waiting period start.

-- AlterTable
ALTER TABLE "conversations" ADD COLUMN     "first_inbound_at" TIMESTAMPTZ(3);

UPDATE "conversations" SET "first_inbound_at" = "waiting_since" WHERE "first_response_at" IS NULL AND "waiting_since" IS NOT NULL;
