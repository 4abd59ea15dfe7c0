import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { loadStackConfig } from '../config/index';
import { findRunningStack } from '../stack/running-stacks';
import { dataPaths } from '../paths';

/*
 * `npm run number -- acme +15005550001` registers a number for a business through the running stack's
 * operator API (PUT /admin/businesses/{business}/numbers/{e164}), `--channels sms,mms,whatsapp` saying
 * what it carries (default: SMS and MMS; the simulator's numbers: all three); `--retire` retires it; with the
 * business alone, lists its numbers. `--rcs` (the simulator) makes it an RCS sender too: the simulator's
 * Messaging Service for the number (`MG…`, derived from it) and that service's RCS sender `rcs:sim_MG…`
 * as its `rcs_agent`. The credential is ADMIN_TOKEN, else the one npm start keeps in the
 * data directory; the carrier is the stack's (the simulator's unless MESSAGE_PROVIDER says otherwise).
 */
async function main() {
  const args = process.argv.slice(2);
  const retire = args.includes('--retire');
  const rcs = args.includes('--rcs');
  const at = args.indexOf('--channels');
  const channels = at >= 0 ? args[at + 1]?.split(',').map((c) => c.trim()) : undefined;
  const [business, number] = args.filter((arg, k) => arg !== '--retire' && arg !== '--rcs' && (at < 0 || (k !== at && k !== at + 1)));
  if (!business) throw new Error('Usage: npm run number -- <business> [<+E.164 number> [--channels sms,mms,whatsapp] [--rcs] [--retire]]');
  const config = loadStackConfig();
  const found = await findRunningStack(config);
  const paths = dataPaths(found?.dataDir ?? config.DATA_DIR);
  const stack = found?.info;
  const api = stack?.api ?? `http://localhost:${config.PORT}`;
  const token = config.ADMIN_TOKEN ?? (await readFile(paths.devAdminToken, 'utf8').catch(() => '')).trim();
  if (!token) throw new Error(`Set ADMIN_TOKEN, or run npm start once so that it keeps one in ${paths.devAdminToken}`);
  const base = `${api}/admin/businesses/${encodeURIComponent(business)}/numbers`;
  if (rcs && !stack?.simulator) throw new Error('--rcs registers the simulator\'s RCS sender; with a carrier, PUT the number with its messaging_service_sid and rcs_agent (docs/operations.md, "RCS senders")');
  const service = number && `MG${createHash('sha256').update(`simulator rcs ${number}`).digest('hex').slice(0, 32)}`;
  const request = (method: string, url: string, body?: unknown) =>
    fetch(url, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const response = !number
    ? await request('GET', base)
    : retire
      ? await request('DELETE', `${base}/${encodeURIComponent(number)}`)
      : await request('PUT', `${base}/${encodeURIComponent(number)}`, {
          carrier: stack?.simulator ? 'simulator' : config.MESSAGE_PROVIDER,
          // The simulator carries every channel on each of its numbers.
          ...((channels || stack?.simulator) && { channels: channels ?? ['sms', 'mms', 'whatsapp', ...(rcs ? ['rcs'] : [])] }),
          ...(rcs && { messaging_service_sid: service, rcs_agent: `rcs:sim_${service}` }),
        });
  const text = await response.text();
  if (!response.ok) throw new Error(`${api} answered ${response.status}: ${(JSON.parse(text || '{}') as { detail?: string }).detail ?? text}`);
  if (!number) console.log(text);
  else console.log(retire ? `${number} retired from ${business}` : `${number} is ${business}'s: ${text}`);
}

main().catch((error) => {
  console.error((error as Error).message);
  process.exit(1);
});
