-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "batch_chunk" INTEGER,
ADD COLUMN     "batch_id" UUID;

-- CreateTable
CREATE TABLE "message_batches" (
    "id" UUID NOT NULL,
    "business" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "workflow_id" TEXT NOT NULL,
    "idempotency_key" TEXT,
    "request_hash" TEXT,
    "send_at" TIMESTAMPTZ(3) NOT NULL,
    "send_window" JSONB,
    "total" INTEGER NOT NULL,
    "accepted" INTEGER NOT NULL,
    "results" JSONB NOT NULL,
    "chunks_claimed" INTEGER NOT NULL DEFAULT 0,
    "finished_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "message_batches_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sender_paces" (
    "sender" TEXT NOT NULL,
    "next_slot_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sender_paces_pkey" PRIMARY KEY ("sender")
);

-- CreateIndex
CREATE INDEX "message_batches_business_owner_id_created_at_idx" ON "message_batches"("business", "owner_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "message_batches_business_owner_id_idempotency_key_key" ON "message_batches"("business", "owner_id", "idempotency_key");

-- CreateIndex
CREATE INDEX "messages_batch_id_status_idx" ON "messages"("batch_id", "status");

-- CreateIndex
CREATE INDEX "messages_batch_id_batch_chunk_idx" ON "messages"("batch_id", "batch_chunk");

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_batch_id_fkey" FOREIGN KEY ("batch_id") REFERENCES "message_batches"("id") ON DELETE CASCADE ON UPDATE CASCADE;
