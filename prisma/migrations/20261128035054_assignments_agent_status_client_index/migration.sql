-- The clients an agent holds now, from the index alone (issue 39): GET /conversations?agent= counts them, reads
-- them, and checks a conversation's client against them without the table (bench conversations, docs/performance.md).
-- It starts with agent_pk, so it serves every lookup the index on agent_pk alone served.
-- DropIndex
DROP INDEX "assignments_agent_pk_idx";

-- CreateIndex
CREATE INDEX "assignments_agent_pk_status_client_pk_dt_until_idx" ON "assignments"("agent_pk", "status", "client_pk", "dt_until");
