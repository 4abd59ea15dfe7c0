import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { bearerOf, serviceCredentialCheck } from '../../auth/service-credential';
import type { CodecCredentials } from '../../config/index';
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

/**
 * The operator routes' authentication (every /admin route mounts it): the bearer secret or an operator
 * JWT, else a 401 (whose `hint`, under npm start, says where its development token is); each access is
 * logged with who asked, each refusal (`admin.access_refused`, warn) with why, never with the credential.
 */
export function operatorAuthentication(credentials: OperatorCredentials, logger: Logger, refusalHint?: string): RequestHandler {
  const check = serviceCredentialCheck(credentials);
  const identify = (authorization: string | undefined): Operator | undefined => {
    const bearer = bearerOf(authorization);
    const caller = bearer === undefined ? undefined : check(bearer);
    if (!caller) return undefined;
    return caller.credential === 'jwt' ? { caller: caller.subject, credential: 'jwt' } : { caller: 'admin token holder', credential: 'admin-token' };
  };
  return (req, _res, next) => {
    const operator = identify(req.get('authorization'));
    if (!operator) {
      // A refused operator call is worth an operator's attention: someone tried the door (a business token, a guessed secret).
      const reason = bearerOf(req.get('authorization')) === undefined ? 'no bearer credential' : 'credential not accepted';
      logger.warn({ event: 'admin.access_refused', reason, method: req.method, path: req.path, ip: req.ip }, 'operator API access refused');
      const refused = unauthorized('Missing or invalid operator credential');
      if (refusalHint) refused.hint = refusalHint;
      throw refused;
    }
    req.operator = operator;
    logger.info({ event: 'admin.access', caller: operator.caller, credential: operator.credential, method: req.method, path: req.path }, 'operator API access');
    next();
  };
}
