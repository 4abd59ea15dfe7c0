-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "provider_accepted_at" TIMESTAMPTZ(3);
