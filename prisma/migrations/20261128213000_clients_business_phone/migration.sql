-- Issue 48: a text to a business's own number that no user of the business texted goes to the user who
-- holds a client at that phone, so the lookup reads the business's clients by phone, across their owners.

-- CreateIndex
CREATE INDEX "clients_business_phone_idx" ON "clients"("business", "phone");
