import { sharedNpmStart } from '../support/shared-npm-start';
import { businessNumbers } from './journeys/business-numbers';
import { crmFakes } from './journeys/crm-fakes';
import { rcsJourney, registrationJourney } from './journeys/rcs-and-registration';
import { simulatorWalkthrough } from './journeys/simulator';
import { simulatorPort } from './journeys/simulator-port';
import { whatsappJourney } from './journeys/whatsapp';

/*
 * The walkthroughs a developer follows on `npm start` (simulator, CRM fakes), one after another on one
 * stack: its boot is paid once for all of them (docs/design.md, "Whole-stack files share one start").
 * Each journey keeps its own business, users and phones, so all but one run side by side. The stacks that are killed, restarted or
 * started with other settings have files of their own.
 */

const shared = sharedNpmStart('crm-journeys');

// Side by side (test.concurrent, in one block: jest runs a block's consecutive concurrent tests together), as
// their waits are the carrier's and the clocks', not the stack's CPU. The CRM fakes' journey times its
// write-backs (within 5 s), so it runs after them, alone.
simulatorPort(shared);
simulatorWalkthrough(shared);
businessNumbers(shared);
whatsappJourney(shared);
registrationJourney(shared);
rcsJourney(shared);
describe('the CRM fakes', () => crmFakes(shared));

test('npm start stops on SIGTERM with exit code 0 after the journeys', async () => {
  expect(await shared().stack.stop()).toBe(0);
}, 120_000);
