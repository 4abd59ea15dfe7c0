import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { insertClient } from '../../db/clients';
import { conflict } from '../http/problem';
import { scopeOf } from '../http/scope';
import { optionalName, parseBody, phoneNumber, resourceId } from '../../use-cases/input/validation';
import { timeZone } from '../../use-cases/input/time-zone';
import { findOwnedClient } from '../../use-cases/clients/owned-client';
import { clientView } from '../../views/client';
import { listClientsRequest } from '../../use-cases/clients/list';
import { updateClientRequest } from '../../use-cases/clients/update';
import { eraseClient, type EraseClientDeps } from '../../use-cases/clients/erase';

export type ClientRoutesDeps = EraseClientDeps;

const createClientBody = z.object({
  _id: resourceId.optional(),
  name: optionalName,
  phone: phoneNumber.nullish(),
  timezone: timeZone.nullish(),
});

export function clientsRouter(deps: ClientRoutesDeps): Router {
  const { prisma } = deps;
  const router = Router({ mergeParams: true });

  router.post('/clients', async (req, res) => {
    const body = parseBody(createClientBody, req.body);
    const scope = scopeOf(req);
    const client = await insertClient(prisma, scope, { id: body._id ?? randomUUID(), name: body.name, phone: body.phone ?? null, timezone: body.timezone ?? null }, () =>
      conflict(`Client ${body._id} already exists`),
    );
    res.status(201).location(`/ext/v2/${scope.business}/clients/${client.id}`).json(clientView(client));
  });

  router.get('/clients', async (req, res) => {
    res.json(await listClientsRequest(prisma, scopeOf(req), req.query));
  });

  router.get('/clients/:clientId', async (req, res) => {
    res.json(clientView(await findOwnedClient(prisma, scopeOf(req), req.params.clientId)));
  });

  router.patch('/clients/:clientId', async (req, res) => {
    res.json(clientView(await updateClientRequest(prisma, scopeOf(req), req.params.clientId, req.body)));
  });

  router.delete('/clients/:clientId', async (req, res) => {
    await eraseClient(deps, scopeOf(req), req.params.clientId);
    res.status(204).end();
  });

  return router;
}
