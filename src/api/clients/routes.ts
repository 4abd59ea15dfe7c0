import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import { insertClient } from '../../db/clients';
import type { Prisma } from '../../db/prisma';
import { conflict } from '../http/problem';
import { scopeOf } from '../http/scope';
import { optionalName, parseBody, phoneNumber, resourceId } from '../../use-cases/input/validation';
import { timeZone } from '../../use-cases/input/time-zone';
import { findOwnedClient } from '../../use-cases/clients/owned-client';
import { clientView } from '../../views/client';

export interface ClientRoutesDeps {
  prisma: Prisma;
}

const createClientBody = z.object({
  _id: resourceId.optional(),
  name: optionalName,
  phone: phoneNumber.nullish(),
  timezone: timeZone.nullish(),
});

export function clientsRouter({ prisma }: ClientRoutesDeps): Router {
  const router = Router({ mergeParams: true });

  router.post('/clients', async (req, res) => {
    const body = parseBody(createClientBody, req.body);
    const scope = scopeOf(req);
    const client = await insertClient(prisma, scope, { id: body._id ?? randomUUID(), name: body.name, phone: body.phone ?? null, timezone: body.timezone ?? null }, () =>
      conflict(`Client ${body._id} already exists`),
    );
    res.status(201).location(`/ext/v2/${scope.business}/clients/${client.id}`).json(clientView(client));
  });

  router.get('/clients/:clientId', async (req, res) => {
    res.json(clientView(await findOwnedClient(prisma, scopeOf(req), req.params.clientId)));
  });

  return router;
}
