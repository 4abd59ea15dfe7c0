/** The Nexus callers' namespace: the run's dev server creates it at launch; another server gets it on first use. */
export const NEXUS_CALLER_NAMESPACE = 'crm-nexus-callers';
