import jwt from 'jsonwebtoken';
import { readFileSync } from 'node:fs';
import { loadConfig } from './config';
import { dataPaths } from './paths';

/** Prints a development token for `sub = <userId>`, signed with JWT_SECRET (or the secret npm start generated). */
const [userId, requestedLifetime] = process.argv.slice(2);
if (!userId) {
  console.error('usage: npm run token -- <userId> [lifetime, e.g. 12h]');
  process.exit(2);
}
const config = loadConfig();
// 12 hours, or JWT_MAX_AGE when that is shorter: the API would refuse a token living longer.
const DEFAULT_LIFETIME_SECONDS = 12 * 60 * 60;
const lifetime = requestedLifetime ?? Math.min(DEFAULT_LIFETIME_SECONDS, config.jwtMaxAgeSeconds ?? DEFAULT_LIFETIME_SECONDS);
const secret = config.JWT_SECRET ?? (() => {
  try {
    return readFileSync(dataPaths(config.DATA_DIR).devJwtSecret, 'utf8').trim();
  } catch {
    console.error('Set JWT_SECRET, or run npm start once so that it generates a development secret.');
    process.exit(2);
  }
})();
console.log(jwt.sign({}, secret, { algorithm: 'HS256', subject: userId, expiresIn: lifetime as jwt.SignOptions['expiresIn'] }));
