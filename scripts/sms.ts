import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { loadConfig } from '../src/config/index';
import { findRunningStack } from '../src/stack/running-stacks';
import { MEDIA_EXTENSIONS, mediaTypeOf } from '../src/stack/simulator/media-types';
import { dataPaths } from '../src/paths';

/*
 * `npm run sms -- +14155550100 "STOP"`: a person texts the running stack's simulator number (its shared
 * sender; `--to +15005550001` texts another of its numbers, such as one a business registered).
 * `--whatsapp` writes on WhatsApp instead (which opens the 24-hour window for that pair), `--rcs` on RCS
 * to the RCS sender that last wrote to the person with `--to` as its fallback (`--tap "<reply>"` taps one of
 * that message's suggested replies, no text needed), and each
 * `--media <file>` attaches a file (an MMS; WhatsApp takes one), its content type from its extension; the
 * text may then be left out. With `npm start` (MESSAGE_PROVIDER=simulator) running — on DATA_DIR when set,
 * else the one running (the default data directory's when several run; src/stack/running-stacks.ts) —
 * the simulator posts the message, signed as Twilio signs, to the stack's inbound route.
 */

const USAGE = 'Usage: npm run sms -- [--to <one of the simulator\'s numbers>] [--whatsapp | --rcs [--tap "<suggested reply>"]] [--media <file>]… <from, e.g. +14155550100> ["<text>"]';

function parseArgs(args: string[]) {
  const options = { to: undefined as string | undefined, whatsapp: false, rcs: false, tap: undefined as string | undefined, media: [] as string[], rest: [] as string[] };
  for (let k = 0; k < args.length; k++) {
    const arg = args[k];
    if (arg === '--to' || arg === '--media' || arg === '--tap') {
      const value = args[++k];
      if (value === undefined) throw new Error(USAGE);
      if (arg === '--to') options.to = value;
      else if (arg === '--tap') options.tap = value;
      else options.media.push(value);
    } else if (arg === '--whatsapp') options.whatsapp = true;
    else if (arg === '--rcs') options.rcs = true;
    else options.rest.push(arg);
  }
  const [from, text, ...extra] = options.rest;
  if (!from || extra.length || (text === undefined && options.media.length === 0 && !options.tap) || (options.tap && !options.rcs) || (options.rcs && options.whatsapp)) throw new Error(USAGE);
  return { ...options, from, text: text ?? '' };
}

async function mediaOf(paths: string[]) {
  return Promise.all(
    paths.map(async (path) => {
      const contentType = mediaTypeOf(path);
      if (!contentType) throw new Error(`${basename(path)}: the content type is read from the extension, one of ${MEDIA_EXTENSIONS.join(' ')}`);
      return { content_type: contentType, data: (await readFile(path)).toString('base64') };
    }),
  );
}

async function main() {
  const { to, whatsapp, rcs, tap, media: paths, from, text } = parseArgs(process.argv.slice(2));
  const media = await mediaOf(paths);
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
    body: JSON.stringify({ from, text, ...(to && { to }), ...(whatsapp && { channel: 'whatsapp' }), ...(rcs && { channel: 'rcs' }), ...(tap && { tap }), ...(media.length && { media }) }),
  });
  const body = (await response.json()) as { sid?: string; to?: string; url?: string; answer?: number; message?: string; media?: string[] };
  if (!response.ok) throw new Error(`The simulator refused the text: ${body.message ?? response.status}`);
  const files = body.media?.length ? ` with ${body.media.length} file${body.media.length > 1 ? 's' : ''}` : '';
  const how = whatsapp ? 'wrote on WhatsApp to' : tap ? 'tapped a suggested reply on RCS from' : rcs ? 'wrote on RCS to the agent of' : 'texted';
  console.log(`${from} ${how} ${body.to ?? stack.simulator.number}: ${JSON.stringify(tap ?? text)}${files} (${body.sid}); the stack answered ${body.answer} at ${body.url}`);
  if (body.answer !== 200) process.exitCode = 1;
}

main().catch((error) => {
  console.error((error as Error).message);
  process.exit(1);
});
