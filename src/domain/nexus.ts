/** The Nexus service's name: the contract (src/nexus/contract.ts) and the endpoint the stack registers both use it. */
export const CRM_SERVICE_NAME = 'crm';
