-- CreateTable
CREATE TABLE "assign_requests" (
    "workflow_id" TEXT NOT NULL,
    "business" TEXT NOT NULL,
    "owner_id" TEXT,
    "notes" TEXT,
    "outcome" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "assign_requests_pkey" PRIMARY KEY ("workflow_id")
);

-- CreateIndex
CREATE INDEX "assign_requests_created_at_idx" ON "assign_requests"("created_at");
