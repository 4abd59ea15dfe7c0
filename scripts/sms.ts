import { readFile } from 'node:fs/promises';
import { loadConfig } from '../src/config/index';
import { findRunningStack } from '../src/stack/running-stacks';
import { dataPaths } from '../src/paths';

/*
 * `npm run sms -- +14155550100 "STOP"`: a person texts the running stack's simulator number (its shared
 * sender; `--to +15005550001` texts another of its numbers, such as one a business registered). With
 * `npm start` (MESSAGE_PROVIDER=simulator) running — on DATA_DIR when set, else the one running (the default
 * data directory's when several run; src/stack/running-stacks.ts) — the simulator posts the text, signed as Twilio signs, to the stack's inbound route.
 */
async function main() {
  const args = process.argv.slice(2);
  const toAt = args.indexOf('--to');
  const to = toAt >= 0 ? args[toAt + 1] : undefined;
  const [from, text] = toAt >= 0 ? args.filter((_, k) => k !== toAt && k !== toAt + 1) : args;
  if (!from || text === undefined || (toAt >= 0 && !to)) throw new Error('Usage: npm run sms -- [--to <one of the simulator\'s numbers>] <from, e.g. +14155550100> "<text>"');
  const config = loadConfig();
  const found = await findRunningStack(config);
  if (!found) {
    throw new Error(`No npm start is running${config.dataDirGiven ? ` on ${dataPaths(config.DATA_DIR).stackLock}` : ''}; start it (MESSAGE_PROVIDER=simulator, the default) first`);
  }
  const stack = found.info;
  if (!stack.simulator) throw new Error(`The npm start running on ${found.dataDir} does not run the simulator (MESSAGE_PROVIDER is not simulator)`);
  const token = (await readFile(dataPaths(found.dataDir).devSimulatorToken, 'utf8')).trim();
  const response = await fetch(`${stack.simulator.url}/simulator/sms`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${stack.simulator.accountSid}:${token}`).toString('base64')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from, text, ...(to && { to }) }),
  });
  const body = (await response.json()) as { sid?: string; to?: string; url?: string; answer?: number; message?: string };
  if (!response.ok) throw new Error(`The simulator refused the text: ${body.message ?? response.status}`);
  console.log(`${from} texted ${body.to ?? stack.simulator.number}: ${JSON.stringify(text)} (${body.sid}); the stack answered ${body.answer} at ${body.url}`);
  if (body.answer !== 200) process.exitCode = 1;
}

main().catch((error) => {
  console.error((error as Error).message);
  process.exit(1);
});
