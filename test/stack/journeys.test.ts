import { sharedNpmStart } from '../support/shared-npm-start';
import { businessNumbers } from './journeys/business-numbers';
import { crmFakes } from './journeys/crm-fakes';
import { simulatorWalkthrough } from './journeys/simulator';
import { simulatorPort } from './journeys/simulator-port';
import { whatsappJourney } from './journeys/whatsapp';

/*
 * The walkthroughs a developer follows on `npm start` (simulator, CRM fakes), one after another on one
 * stack: its boot is paid once for all of them (docs/design.md, "Whole-stack files share one start").
 * Each journey keeps its own business, users and phones. The stacks that are killed, restarted or
 * started with other settings have files of their own.
 */

const shared = sharedNpmStart('crm-journeys');

describe('the simulator on its port', () => simulatorPort(shared));
describe('the simulator walkthrough', () => simulatorWalkthrough(shared));
describe('each business its own numbers', () => businessNumbers(shared));
describe('WhatsApp and MMS through the simulator', () => whatsappJourney(shared));
describe('the CRM fakes', () => crmFakes(shared));

test('npm start stops on SIGTERM with exit code 0 after the journeys', async () => {
  expect(await shared().stack.stop()).toBe(0);
}, 120_000);
