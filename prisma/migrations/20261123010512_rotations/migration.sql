-- CreateEnum
CREATE TYPE "rotation_status" AS ENUM ('active', 'stopped');

-- AlterTable
ALTER TABLE "assignments" ADD COLUMN     "rotation" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "rotations" (
    "key" UUID NOT NULL,
    "client_pk" UUID NOT NULL,
    "business" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "status" "rotation_status" NOT NULL DEFAULT 'active',
    "agent_ids" TEXT[],
    "period" TEXT NOT NULL,
    "period_ms" BIGINT NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "effective_at" TIMESTAMPTZ(3) NOT NULL,
    "notes" TEXT,
    "version" INTEGER NOT NULL DEFAULT 1,
    "pending" JSONB,
    "covered_until" TIMESTAMPTZ(3),
    "current" JSONB,
    "skipped" JSONB NOT NULL DEFAULT '[]',
    "stopped_at" TIMESTAMPTZ(3),
    "stopped_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rotations_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "rotations_status_idx" ON "rotations"("status");

-- CreateIndex
CREATE UNIQUE INDEX "rotations_client_pk_owner_id_key" ON "rotations"("client_pk", "owner_id");

-- AddForeignKey
ALTER TABLE "rotations" ADD CONSTRAINT "rotations_client_pk_fkey" FOREIGN KEY ("client_pk") REFERENCES "clients"("pk") ON DELETE CASCADE ON UPDATE CASCADE;
