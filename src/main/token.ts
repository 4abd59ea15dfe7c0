import jwt from 'jsonwebtoken';
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/index';
import { dataPaths } from '../paths';
import { findRunningStack, type FoundStack } from '../stack/running-stacks';

/**
 * Prints a development token for `sub = <userId>`, signed with JWT_SECRET (or the secret npm start
 * generated); with JWT_BUSINESS_CLAIM set (here or in the running npm start), bound to the businesses
 * named by --business, which is refused when tokens are not bound to businesses.
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
// 12 hours, or JWT_MAX_AGE when that is shorter: the API would refuse a token living longer.
const DEFAULT_LIFETIME_SECONDS = 12 * 60 * 60;
const lifetime = requestedLifetime ?? Math.min(DEFAULT_LIFETIME_SECONDS, config.jwtMaxAgeSeconds ?? DEFAULT_LIFETIME_SECONDS);

/** JWT_SECRET, else the development secret of the running npm start, else the one kept in DATA_DIR for the next start. */
async function signingSecret(stack: FoundStack | undefined): Promise<string> {
  if (config.JWT_SECRET) return config.JWT_SECRET;
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

/**
 * The claim naming the token's businesses: JWT_BUSINESS_CLAIM here, else the running npm start's (found
 * from its lock, whatever this shell's DATA_DIR), as the API that checks the token has it.
 */
function businessClaim(stack: FoundStack | undefined): string | undefined {
  const claim = config.JWT_BUSINESS_CLAIM ?? stack?.info.jwtBusinessClaim;
  if (claim && args.businesses.length === 0) {
    throw new Error(`JWT_BUSINESS_CLAIM is set (${claim}${config.JWT_BUSINESS_CLAIM ? '' : `, by the npm start running on ${stack!.dataDir}`}): name the business the token acts for with --business <name>.\n${USAGE}`);
  }
  if (!claim && args.businesses.length > 0) {
    throw new Error(
      `--business ${args.businesses.join(', ')}: tokens are not bound to businesses here (JWT_BUSINESS_CLAIM is set neither in this shell nor ${stack ? `in the npm start running on ${stack.dataDir}` : 'for a running npm start'}), ` +
        'so the API would not check it. Start npm start with JWT_BUSINESS_CLAIM=<claim name> to bind tokens to businesses, or leave out --business.',
    );
  }
  return claim;
}

async function main(): Promise<string> {
  // The running stack is needed for its secret or its claim; with both given here, a failed search does not matter.
  const stack = await findRunningStack(config).catch((error: Error) => {
    if (!config.JWT_SECRET || (!config.JWT_BUSINESS_CLAIM && args.businesses.length > 0)) throw error;
    return undefined;
  });
  const claim = businessClaim(stack);
  const claims = claim ? { [claim]: args.businesses.length === 1 ? args.businesses[0] : args.businesses } : {};
  const secret = await signingSecret(stack);
  return jwt.sign(claims, secret, { algorithm: 'HS256', subject: userId, expiresIn: lifetime as jwt.SignOptions['expiresIn'] });
}

main().then(
  (token) => console.log(token),
  (error: Error) => {
    console.error(error.message);
    process.exit(2);
  },
);
