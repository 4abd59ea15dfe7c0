import type { RequestHandler } from 'express';
import { createTokenVerifier, InvalidToken, mayActFor, type AuthConfig, type Caller } from '../../auth/bearer-token';
import { forbidden, unauthorized } from './problem';

export type { AuthConfig, Caller } from '../../auth/bearer-token';

declare module 'express-serve-static-core' {
  interface Request {
    caller?: Caller;
  }
}

export const NOT_THIS_BUSINESS = 'Token is not valid for this business';

/**
 * Every business route's caller, from its bearer token; a refused token is a 401. A token bound to other
 * businesses (JWT_BUSINESS_CLAIM) is a 403 before anything of the route is read, the same whether the
 * path's business exists or not.
 */
export function authenticate(config: AuthConfig): RequestHandler {
  const verify = createTokenVerifier(config);
  return (req, _res, next) => {
    let caller: Caller;
    try {
      caller = verify(req.get('authorization'));
    } catch (error) {
      throw error instanceof InvalidToken ? unauthorized(error.message) : error;
    }
    if (!mayActFor(caller, req.params.business as string)) throw forbidden(NOT_THIS_BUSINESS);
    req.caller = caller;
    next();
  };
}
