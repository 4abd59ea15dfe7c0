-- AlterTable
ALTER TABLE "assignments" ADD COLUMN     "ended_by" TEXT;

-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "canceled_by" TEXT;
