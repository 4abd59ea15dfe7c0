import { Router } from 'express';
import { scopeOf } from '../http/scope';
import { createClientRequest } from '../../use-cases/clients/create';
import { findOwnedClient } from '../../use-cases/clients/owned-client';
import { clientView } from '../../views/client';
import { listClientsRequest } from '../../use-cases/clients/list';
import { updateClientRequest } from '../../use-cases/clients/update';
import { eraseClient, type EraseClientDeps } from '../../use-cases/erasure/client';
import { listConsentsRequest, putConsentRequest, withdrawConsentRequest } from '../../use-cases/clients/consents';

export type ClientRoutesDeps = EraseClientDeps;

export function clientsRouter(deps: ClientRoutesDeps): Router {
  const { prisma } = deps;
  const router = Router({ mergeParams: true });

  router.post('/clients', async (req, res) => {
    const scope = scopeOf(req);
    const client = await createClientRequest(prisma, scope, req.body);
    res.status(201).location(`/ext/v2/${scope.business}/clients/${client._id}`).json(client);
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

  router.put('/clients/:clientId/consents/:channel', async (req, res) => {
    res.json(await putConsentRequest(deps.prisma, scopeOf(req), req.params.clientId, req.params.channel, req.body));
  });
  router.get('/clients/:clientId/consents', async (req, res) => {
    res.json(await listConsentsRequest(deps.prisma, scopeOf(req), req.params.clientId));
  });
  router.delete('/clients/:clientId/consents/:channel', async (req, res) => {
    await withdrawConsentRequest(deps.prisma, scopeOf(req), req.params.clientId, req.params.channel);
    res.status(204).end();
  });

  router.delete('/clients/:clientId', async (req, res) => {
    await eraseClient(deps, scopeOf(req), req.params.clientId);
    res.status(204).end();
  });

  return router;
}
