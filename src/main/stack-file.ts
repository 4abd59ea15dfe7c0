import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { loadConfig } from '../config/index';
import { dataPaths } from '../paths';
import { findRunningStack } from '../stack/running-stacks';

/*
 * `npm run -s stack:file -- dev-admin-token`: the absolute path of a file npm start keeps in its data
 * directory — the running stack's (found from any shell, as `npm run token` finds it), else DATA_DIR's —
 * so that walkthroughs read `$(cat "$(npm run -s stack:file -- dev-admin-token)")` whatever DATA_DIR is.
 */
async function main(): Promise<string> {
  const config = loadConfig();
  const names = Object.values(dataPaths(config.DATA_DIR)).map((path) => basename(path));
  const [name] = process.argv.slice(2);
  if (!name || !names.includes(name)) throw new Error(`usage: npm run -s stack:file -- <name>, one of: ${names.join(', ')}`);
  const dataDir = (await findRunningStack(config))?.dataDir ?? config.DATA_DIR;
  const path = Object.values(dataPaths(dataDir)).find((candidate) => basename(candidate) === name)!;
  if (!existsSync(path)) throw new Error(`${path} does not exist: npm start writes it${name === 'dev-crm-fakes.json' ? ' with CRM_FAKES=1' : ''} (outside production)`);
  return path;
}

main().then(
  (path) => console.log(path),
  (error: Error) => {
    console.error(error.message);
    process.exit(2);
  },
);
