import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { createTokenVerifier } from '../../auth/bearer-token';
import type { CodecCredentials } from '../../config';
import { unauthorized } from './problem';

/** The operator credential: ADMIN_TOKEN, or a JWT whose audience is ADMIN_JWT_AUDIENCE (never a business token). */
export type OperatorCredentials = CodecCredentials;

/** Who made an operator call, for the line each access leaves. */
export interface Operator {
  caller: string;
  credential: 'admin-token' | 'jwt';
}

declare module 'express-serve-static-core' {
  interface Request {
    operator?: Operator;
  }
}

const sameSecret = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * The operator routes' authentication (every /admin route mounts it): the bearer secret or an operator
 * JWT, else a 401; each access is logged with who asked, never with the credential.
 */
export function operatorAuthentication(credentials: OperatorCredentials, logger: Logger): RequestHandler {
  const verifyJwt = credentials.jwt && createTokenVerifier(credentials.jwt);
  const identify = (authorization: string | undefined): Operator | undefined => {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
    if (!bearer) return undefined;
    if (credentials.token && sameSecret(bearer, credentials.token)) return { caller: 'admin token holder', credential: 'admin-token' };
    if (!verifyJwt) return undefined;
    try {
      return { caller: verifyJwt(`Bearer ${bearer}`).userId, credential: 'jwt' };
    } catch {
      return undefined;
    }
  };
  return (req, _res, next) => {
    const operator = identify(req.get('authorization'));
    if (!operator) throw unauthorized('Missing or invalid operator credential');
    req.operator = operator;
    logger.info({ event: 'admin.access', caller: operator.caller, credential: operator.credential, method: req.method, path: req.path }, 'operator API access');
    next();
  };
}
