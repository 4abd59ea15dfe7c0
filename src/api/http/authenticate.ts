import type { RequestHandler } from 'express';
import { createTokenVerifier, InvalidToken, type AuthConfig, type Caller } from '../../auth/bearer-token';
import { unauthorized } from './problem';

export type { AuthConfig, Caller } from '../../auth/bearer-token';

declare module 'express-serve-static-core' {
  interface Request {
    caller?: Caller;
  }
}

/** Every business route's caller, from its bearer token; a refused token is a 401. */
export function authenticate(config: AuthConfig): RequestHandler {
  const verify = createTokenVerifier(config);
  return (req, _res, next) => {
    try {
      req.caller = verify(req.get('authorization'));
    } catch (error) {
      throw error instanceof InvalidToken ? unauthorized(error.message) : error;
    }
    next();
  };
}
