import { Router } from 'express';
import { findRotation } from '../../db/rotations';
import { findOwnedClient } from '../../use-cases/clients/owned-client';
import { notFound } from '../http/problem';
import { scopeOf } from '../http/scope';
import { putRotationRequest, type RotationDeps } from '../../use-cases/rotation/put';
import { stopRotationRequest } from '../../use-cases/rotation/stop';
import { rotationView } from '../../views/rotation';

export type RotationRoutesDeps = RotationDeps;

export function rotationRouter(deps: RotationRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.put('/clients/:clientId/rotation', async (req, res) => {
    const { created, view } = await putRotationRequest(deps, scopeOf(req), req.params.clientId, req.body, String(req.id));
    res.status(created ? 201 : 200).json(view);
  });

  router.get('/clients/:clientId/rotation', async (req, res) => {
    const scope = scopeOf(req);
    const client = await findOwnedClient(deps.prisma, scope, req.params.clientId);
    const rotation = await findRotation(deps.prisma, client.pk, scope.ownerId);
    if (!rotation) throw notFound('No rotation on this client');
    res.json(rotationView(rotation));
  });

  router.delete('/clients/:clientId/rotation', async (req, res) => {
    res.json(await stopRotationRequest(deps, scopeOf(req), req.params.clientId));
  });

  return router;
}
