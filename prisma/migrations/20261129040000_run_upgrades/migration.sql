-- Issue 50: the workflow generation this database's runs were last upgraded to (docs/design.md, "Upgrading
-- runs from before Worker Versioning").

-- CreateTable
CREATE TABLE "run_upgrades" (
    "generation" INTEGER NOT NULL,
    "cutoff" TIMESTAMPTZ(3) NOT NULL,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "run_upgrades_pkey" PRIMARY KEY ("generation")
);
