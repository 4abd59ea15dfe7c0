import type { Request } from 'express';
import type { Scope } from '../../domain';

export type { Scope } from '../../domain';

export function scopeOf(req: Request): Scope {
  return { business: req.params.business as string, ownerId: req.caller!.userId };
}
