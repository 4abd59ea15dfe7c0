-- Conversations (issue 39): the thread of a client and a sender, its read horizons per agent and its internal notes.
-- A message names its conversation (NULL: a bare phone, a campaign, an erased client).
-- CreateEnum
CREATE TYPE "ConversationStatus" AS ENUM ('open', 'snoozed', 'closed');

-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "conversation_id" UUID;

-- CreateTable
CREATE TABLE "conversations" (
    "id" UUID NOT NULL,
    "business" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "client_pk" UUID NOT NULL,
    "sender" TEXT NOT NULL,
    "status" "ConversationStatus" NOT NULL DEFAULT 'open',
    "waiting_since" TIMESTAMPTZ(3),
    "last_inbound_at" TIMESTAMPTZ(3),
    "last_outbound_at" TIMESTAMPTZ(3),
    "first_response_at" TIMESTAMPTZ(3),
    "snoozed_until" TIMESTAMPTZ(3),
    "overdue_for" TIMESTAMPTZ(3),
    "last_activity_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "conversations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "conversation_reads" (
    "conversation_id" UUID NOT NULL,
    "agent_pk" UUID NOT NULL,
    "message_id" UUID NOT NULL,
    "message_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "conversation_reads_pkey" PRIMARY KEY ("conversation_id","agent_pk")
);

-- CreateTable
CREATE TABLE "conversation_notes" (
    "id" UUID NOT NULL,
    "conversation_id" UUID NOT NULL,
    "agent_pk" UUID NOT NULL,
    "text" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "conversation_notes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "conversations_business_owner_id_last_activity_at_id_idx" ON "conversations"("business", "owner_id", "last_activity_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "conversations_business_owner_id_waiting_since_id_idx" ON "conversations"("business", "owner_id", "waiting_since", "id");

-- CreateIndex
CREATE INDEX "conversations_business_owner_id_status_last_activity_at_id_idx" ON "conversations"("business", "owner_id", "status", "last_activity_at" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "conversations_client_pk_sender_key" ON "conversations"("client_pk", "sender");

-- CreateIndex
CREATE INDEX "conversation_notes_conversation_id_created_at_id_idx" ON "conversation_notes"("conversation_id", "created_at", "id");

-- CreateIndex
CREATE INDEX "messages_conversation_id_created_at_id_idx" ON "messages"("conversation_id", "created_at", "id");

-- AddForeignKey
ALTER TABLE "conversation_reads" ADD CONSTRAINT "conversation_reads_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "conversation_notes" ADD CONSTRAINT "conversation_notes_conversation_id_fkey" FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
