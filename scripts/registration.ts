import { readFile } from 'node:fs/promises';
import { loadConfig } from '../src/config/index';
import { findRunningStack } from '../src/stack/running-stacks';
import { SIMULATED_REGISTRATIONS } from '../src/stack/simulator/a2p-api';
import { dataPaths } from '../src/paths';

/*
 * `npm run registration -- +15005550001 pending`: sets a number's A2P registration at the running stack's
 * simulator (approved, pending, rejected or unregistered: its 10DLC campaign, or a toll-free number's
 * verification), as Twilio's Messaging API then answers it. The stack reads it again hourly, or at once
 * with the operator's refresh (docs/operations.md, "Number registration (10DLC, toll-free)").
 */

const USAGE = `Usage: npm run registration -- <number, e.g. +15005550001> <${SIMULATED_REGISTRATIONS.join('|')}>`;

async function main() {
  const [number, status, ...extra] = process.argv.slice(2);
  if (!number || !status || extra.length) throw new Error(USAGE);
  const config = loadConfig();
  const found = await findRunningStack(config);
  if (!found) throw new Error(`No npm start is running${config.dataDirGiven ? ` on ${dataPaths(config.DATA_DIR).stackLock}` : ''}; start it (MESSAGE_PROVIDER=simulator, the default) first`);
  const { simulator } = found.info;
  if (!simulator) throw new Error(`The npm start running on ${found.dataDir} does not run the simulator (MESSAGE_PROVIDER is not simulator)`);
  const token = (await readFile(dataPaths(found.dataDir).devSimulatorToken, 'utf8')).trim();
  const response = await fetch(`${simulator.url}/simulator/registration`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${simulator.accountSid}:${token}`).toString('base64')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ number, status }),
  });
  const body = (await response.json()) as { message?: string };
  if (!response.ok) throw new Error(`The simulator refused it: ${body.message ?? response.status}`);
  console.log(`${number} is now ${status} at the simulator; the stack reads it within the hour, or now: POST /admin/businesses/{business}/numbers/${encodeURIComponent(number)}/registration/refresh`);
}

main().catch((error) => {
  console.error((error as Error).message);
  process.exit(1);
});
