-- First response and reassignment (issue 31 section 5): when the current owner answered, how many
-- times the decision moved its client, which agents held it, and when it was escalated.
ALTER TABLE "routing_decisions" ADD COLUMN "answered_at" TIMESTAMPTZ(3),
ADD COLUMN "reassignments" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "held_by" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN "escalated_at" TIMESTAMPTZ(3);
