-- Issue 40: WhatsApp and MMS. The channel, media and template of a message, the read receipts of WhatsApp,
-- what each business number carries, opt-outs per channel (a STOP on WhatsApp opts out of WhatsApp only),
-- the WhatsApp templates of users and the per-channel consent of clients.

-- AlterEnum
ALTER TYPE "message_status" ADD VALUE 'read';

-- AlterTable
ALTER TABLE "business_numbers" ADD COLUMN     "channels" TEXT[] DEFAULT ARRAY['sms', 'mms']::TEXT[];

-- AlterTable
ALTER TABLE "messages" ADD COLUMN     "channel" TEXT NOT NULL DEFAULT 'sms',
ADD COLUMN     "media" JSONB,
ADD COLUMN     "read_at" TIMESTAMPTZ(3),
ADD COLUMN     "template" JSONB;

-- AlterTable
ALTER TABLE "opt_outs" DROP CONSTRAINT "opt_outs_pkey",
ADD COLUMN     "channel" TEXT NOT NULL DEFAULT 'sms',
ADD CONSTRAINT "opt_outs_pkey" PRIMARY KEY ("sender", "phone", "channel");

-- AlterTable
ALTER TABLE "unmatched_inbound" ADD COLUMN     "channel" TEXT NOT NULL DEFAULT 'sms',
ADD COLUMN     "media" JSONB;

-- CreateTable
CREATE TABLE "templates" (
    "pk" UUID NOT NULL,
    "business" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "content_sid" TEXT,
    "name" TEXT,
    "language" TEXT,
    "variables" TEXT[],
    "body" TEXT,
    "approval" TEXT NOT NULL,
    "approval_checked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "templates_pkey" PRIMARY KEY ("pk")
);

-- CreateTable
CREATE TABLE "client_consents" (
    "client_pk" UUID NOT NULL,
    "channel" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "client_consents_pkey" PRIMARY KEY ("client_pk","channel")
);

-- CreateIndex
CREATE UNIQUE INDEX "templates_business_owner_id_id_key" ON "templates"("business", "owner_id", "id");
