import { createNexusServiceClient } from '@temporalio/workflow';
import { crmService, type AssignAgentsOutput } from '../../src/nexus/contract';

/*
 * Another team's workflow, in its own namespace: when a deal is won, the account owner looks after the
 * client for the next 30 days. One durable call through the CRM's Nexus endpoint; no HTTP client,
 * token or retry code. A rejection (an unknown client, an agent that is not the user's) fails the
 * operation for good with the CRM's problem `type` and `detail`, and with it this workflow.
 */

export interface DealWonInput {
  /** The CRM's Nexus endpoint: `crm` on `npm start`'s development server. */
  endpoint: string;
  business: string;
  /** The CRM user the client and the agent belong to. */
  user: string;
  client: string;
  /** An agent of that user. */
  accountOwner: string;
}

export const ACCOUNT_OWNER_DAYS = 30;

export async function dealWon(input: DealWonInput): Promise<AssignAgentsOutput['assignments'][number]> {
  const crm = createNexusServiceClient({ endpoint: input.endpoint, service: crmService });
  // Date.now() is the workflow's deterministic clock: the time of this workflow task.
  const until = new Date(Date.now() + ACCOUNT_OWNER_DAYS * 24 * 60 * 60 * 1000);
  const { assignments } = await crm.executeOperation(
    'assignAgents',
    {
      business: input.business,
      user: input.user,
      client: input.client,
      agents: [{ agent: input.accountOwner, dt_until: until.toISOString() }],
    },
    { scheduleToCloseTimeout: '10 minutes', summary: `Account owner ${input.accountOwner} for ${ACCOUNT_OWNER_DAYS} days` },
  );
  return assignments[0];
}
