import { Router } from 'express';
import type { AppDeps } from '../app';

export function messagesRouter(_deps: AppDeps): Router {
  return Router({ mergeParams: true });
}
