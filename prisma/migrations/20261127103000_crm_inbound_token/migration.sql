-- The secret of a connector's inbound URL (issue 37): Salesforce's Outbound Messages carry no signature,
-- so the URL they post to does. Only its SHA-256 is kept.
ALTER TABLE "crm_connectors" ADD COLUMN "inbound_token_hash" TEXT;
