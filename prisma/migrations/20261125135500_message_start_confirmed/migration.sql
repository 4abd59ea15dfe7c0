-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "start_confirmed" BOOLEAN NOT NULL DEFAULT false;
