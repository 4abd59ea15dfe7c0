import { Router } from 'express';
import { scopeOf } from '../http/scope';
import { rotationOfClient } from '../../use-cases/rotation/get';
import { putRotationRequest, type RotationDeps } from '../../use-cases/rotation/put';
import { stopRotationRequest } from '../../use-cases/rotation/stop';
import { refuseAnyField } from '../../use-cases/input/known-fields';

export type RotationRoutesDeps = RotationDeps;

export function rotationRouter(deps: RotationRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.put('/clients/:clientId/rotation', async (req, res) => {
    const { created, view } = await putRotationRequest(deps, scopeOf(req), req.params.clientId, req.body);
    res.status(created ? 201 : 200).json(view);
  });

  router.get('/clients/:clientId/rotation', async (req, res) => {
    res.json(await rotationOfClient(deps.prisma, scopeOf(req), req.params.clientId));
  });

  router.delete('/clients/:clientId/rotation', async (req, res) => {
    refuseAnyField(req.body);
    res.json(await stopRotationRequest(deps, scopeOf(req), req.params.clientId));
  });

  return router;
}
