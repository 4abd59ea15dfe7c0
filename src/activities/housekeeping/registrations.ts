import { heartbeat } from '@temporalio/activity';
import { REGISTRATION_REFRESH_EVERY_MS, REGISTRATION_REFRESH_LIMIT } from '../../domain';
import { logEvent } from '../../logger';
import type { NumberRegistrations } from '../../use-cases/numbers/registration';

export interface RegistrationActivityDeps {
  /** Each number's A2P registration; undefined without a carrier (nothing to read). */
  registrations?: Pick<NumberRegistrations, 'refreshDue'>;
  /** The businesses this deployment's housekeeping covers (RECONCILE_BUSINESSES); all when unset. */
  reconcileBusinesses?: readonly string[];
}

export function createRegistrationActivities({ registrations, reconcileBusinesses }: RegistrationActivityDeps) {
  return {
    /** The housekeeping run's hourly step: reads again the registrations read longest ago (never read first). */
    async refreshNumberRegistrations(): Promise<{ read: number; failed: number }> {
      if (!registrations) return { read: 0, failed: 0 };
      // A heartbeat per number: hundreds of carrier reads outlast the housekeeping activities' heartbeat timeout.
      const result = await registrations.refreshDue(new Date(Date.now() - REGISTRATION_REFRESH_EVERY_MS), REGISTRATION_REFRESH_LIMIT, reconcileBusinesses, () => heartbeat());
      if (result.read + result.failed > 0) logEvent('number.registrations_refreshed', result);
      return result;
    },
  };
}
