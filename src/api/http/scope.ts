import type { Request } from 'express';
import type { Scope } from '../../db/scope';

export type { Scope } from '../../db/scope';

export function scopeOf(req: Request): Scope {
  return { business: req.params.business as string, ownerId: req.caller!.userId };
}
