import jwt from 'jsonwebtoken';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/index';
import { dataPaths } from '../paths';
import { findRunningStack } from '../stack/running-stacks';

/**
 * Prints a development token for `sub = <userId>`, signed with JWT_SECRET (or the secret npm start
 * generated); with JWT_BUSINESS_CLAIM set, bound to the businesses named by --business.
 */
const USAGE = 'usage: npm run token -- <userId> [lifetime, e.g. 12h] [--business <name>]...';
let args: { positionals: string[]; businesses: string[] };
try {
  const { positionals, values } = parseArgs({ allowPositionals: true, options: { business: { type: 'string', multiple: true } } });
  args = { positionals, businesses: values.business ?? [] };
} catch (error) {
  console.error(`${(error as Error).message}\n${USAGE}`);
  process.exit(2);
}
const [userId, requestedLifetime] = args.positionals;
if (!userId) {
  console.error(USAGE);
  process.exit(2);
}
const config = loadConfig();
const claim = config.JWT_BUSINESS_CLAIM;
if (claim && args.businesses.length === 0) {
  console.error(`JWT_BUSINESS_CLAIM is set (${claim}): name the business the token acts for with --business <name>.\n${USAGE}`);
  process.exit(2);
}
// 12 hours, or JWT_MAX_AGE when that is shorter: the API would refuse a token living longer.
const DEFAULT_LIFETIME_SECONDS = 12 * 60 * 60;
const lifetime = requestedLifetime ?? Math.min(DEFAULT_LIFETIME_SECONDS, config.jwtMaxAgeSeconds ?? DEFAULT_LIFETIME_SECONDS);
/**
 * JWT_SECRET, else the development secret of the running npm start (found from its lock, whatever this
 * shell's DATA_DIR), else the one kept in DATA_DIR for the next start.
 */
async function signingSecret(): Promise<string> {
  if (config.JWT_SECRET) return config.JWT_SECRET;
  const stack = await findRunningStack(config);
  if (stack && !stack.info.devJwtSecret) {
    throw new Error(`The npm start running on ${stack.dataDir} (API ${stack.info.api}) checks tokens with the JWT_SECRET or JWT_PUBLIC_KEY it was given: set JWT_SECRET here too.`);
  }
  const file = stack?.info.devJwtSecret ?? dataPaths(config.DATA_DIR).devJwtSecret;
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    throw new Error('Set JWT_SECRET, or run npm start once so that it generates a development secret.');
  }
}

const claims = claim ? { [claim]: args.businesses.length === 1 ? args.businesses[0] : args.businesses } : {};
signingSecret().then(
  (secret) => console.log(jwt.sign(claims, secret, { algorithm: 'HS256', subject: userId, expiresIn: lifetime as jwt.SignOptions['expiresIn'] })),
  (error: Error) => {
    console.error(error.message);
    process.exit(2);
  },
);
