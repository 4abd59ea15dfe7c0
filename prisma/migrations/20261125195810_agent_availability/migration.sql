-- AlterTable
ALTER TABLE "agents" ADD COLUMN     "capacity" INTEGER,
ADD COLUMN     "presence" TEXT NOT NULL DEFAULT 'available',
ADD COLUMN     "timezone" TEXT,
ADD COLUMN     "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ADD COLUMN     "working_hours" JSONB;

-- CreateTable
CREATE TABLE "agent_absences" (
    "id" UUID NOT NULL,
    "agent_pk" UUID NOT NULL,
    "from_at" TIMESTAMPTZ(3) NOT NULL,
    "until_at" TIMESTAMPTZ(3) NOT NULL,
    "note" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_absences_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "agent_absences_agent_pk_until_at_idx" ON "agent_absences"("agent_pk", "until_at");

-- AddForeignKey
ALTER TABLE "agent_absences" ADD CONSTRAINT "agent_absences_agent_pk_fkey" FOREIGN KEY ("agent_pk") REFERENCES "agents"("pk") ON DELETE CASCADE ON UPDATE CASCADE;
