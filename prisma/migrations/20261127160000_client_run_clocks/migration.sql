-- One run per client (issue 38): the run of the client holds the first-response clocks of its routing
-- decisions and the period boundaries of its rotations. A clock still held by a run of the previous
-- build names that run until the run of the client takes it over (NULL: the run of the client holds it).
ALTER TABLE "routing_decisions" ADD COLUMN "clock_workflow_id" TEXT;
ALTER TABLE "rotations" ADD COLUMN "workflow_id" TEXT;

UPDATE "routing_decisions"
   SET "clock_workflow_id" = 'routing-first-response/' || "business" || '/' || "id"
 WHERE "status" = 'assigned' AND "answered_at" IS NULL AND "escalated_at" IS NULL;

UPDATE "rotations"
   SET "workflow_id" = 'rotation/' || "business" || '/' || "client_pk" || '/' || "key"
 WHERE "status" = 'active';
