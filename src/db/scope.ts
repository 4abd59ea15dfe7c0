/* The rows' tenancy, the shared vocabulary's pair: the doors take it from src/domain, the data modules from here. */
export type { Scope } from '../domain/common';
