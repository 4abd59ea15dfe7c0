-- DropIndex
DROP INDEX "agents_business_owner_id_id_key";

-- DropIndex
DROP INDEX "clients_business_owner_id_id_key";

-- AlterTable
ALTER TABLE "agents" ADD COLUMN     "deleted_at" TIMESTAMPTZ(3),
ADD COLUMN     "live_slot" BOOLEAN DEFAULT true;

-- AlterTable
ALTER TABLE "clients" ADD COLUMN     "deleted_at" TIMESTAMPTZ(3),
ADD COLUMN     "live_slot" BOOLEAN DEFAULT true;

-- AlterTable
ALTER TABLE "messages" ALTER COLUMN "phone" DROP NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "agents_business_owner_id_id_live_slot_key" ON "agents"("business", "owner_id", "id", "live_slot");

-- CreateIndex
CREATE INDEX "clients_business_owner_id_created_at_idx" ON "clients"("business", "owner_id", "created_at");

-- CreateIndex
CREATE INDEX "clients_business_owner_id_phone_idx" ON "clients"("business", "owner_id", "phone");

-- CreateIndex
CREATE UNIQUE INDEX "clients_business_owner_id_id_live_slot_key" ON "clients"("business", "owner_id", "id", "live_slot");
