import type { Request } from 'express';

/** The (business, owner) pair that every resource belongs to. */
export interface Scope {
  business: string;
  ownerId: string;
}

export function scopeOf(req: Request): Scope {
  return { business: req.params.business as string, ownerId: req.caller!.userId };
}
