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

/** The 403's detail: the same words for every refusal, and what to fix when the token lacks the claim altogether. */
export function notThisBusiness(caller: Caller, claimName: string | undefined): string {
  return caller.businessClaimMissing && claimName ? `${NOT_THIS_BUSINESS}: it has no "${claimName}" claim, which names the businesses a token acts for here (JWT_BUSINESS_CLAIM)` : NOT_THIS_BUSINESS;
}

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
    if (!mayActFor(caller, req.params.business as string)) throw forbidden(notThisBusiness(caller, config.businessClaim));
    req.caller = caller;
    next();
  };
}
