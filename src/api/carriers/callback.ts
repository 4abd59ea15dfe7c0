import type { Request, RequestHandler } from 'express';
import type { Carrier, CarrierCallback } from '../../carriers';
import type { NumberCarriers } from '../../carriers/numbers';
import { HttpProblem } from '../http/problem';

/** The carrier's request as its signature covers it: the public URL it called, its headers, its body byte for byte. */
export function callbackOf(req: Request, publicBaseUrl: string | undefined): CarrierCallback {
  const base = (publicBaseUrl ?? `${req.protocol}://${req.get('host')}`).replace(/\/+$/, '');
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return {
    url: base + req.originalUrl,
    headers,
    rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0),
    ...(typeof req.params.messageId === 'string' && { messageId: req.params.messageId }),
  };
}

/** Only the configured carrier's routes exist: any other name is the 404 of an unknown route, before its body is read. */
export const onlyCarrier =
  (carrier: Carrier): RequestHandler =>
  (req, _res, next) =>
    next(req.params.carrier === carrier.name ? undefined : 'route');

export const noCarrier: RequestHandler = (_req, _res, next) => next('route');

/**
 * The carrier's signature, checked before anything is read or changed, with the account of the number
 * the callback is about (a business's own account, else the deployment's); a check that throws counts
 * as a bad signature. `res.locals.numberCarrier` is the carrier whose account signed it.
 */
export function verifiedCallback(carriers: NumberCarriers, kind: 'receipt' | 'inbound', publicBaseUrl: string | undefined): RequestHandler {
  return async (req, res, next) => {
    const callback = callbackOf(req, publicBaseUrl);
    const signer = await Promise.resolve()
      .then(() => carriers.forNumber(carriers.deployment.numberOf?.(callback, kind)))
      .catch(() => undefined);
    const verified = signer !== undefined && (await Promise.resolve().then(() => signer.verify(callback)).catch(() => false));
    if (!verified) return next(new HttpProblem(403, 'Invalid signature', '/problems/forbidden'));
    res.locals.callback = callback;
    res.locals.numberCarrier = signer;
    next();
  };
}
