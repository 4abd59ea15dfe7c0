import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import type { Prisma } from '../../db/prisma';
import { findOwnedClient } from '../owned-client';
import { conflict } from '../problem';
import { scopeOf } from '../scope';
import { parseBody, phoneNumber, resourceId } from '../validation';
import { insertUnique } from '../../db/errors';

const createClientBody = z.object({
  _id: resourceId.optional(),
  name: z.string().max(200).nullish(),
  phone: phoneNumber.nullish(),
});

export const clientView = (c: { id: string; name: string | null; phone: string | null; createdAt: Date }) => ({
  _id: c.id,
  name: c.name,
  phone: c.phone,
  created_at: c.createdAt.toISOString(),
});

export function clientsRouter(prisma: Prisma): Router {
  const router = Router({ mergeParams: true });

  router.post('/clients', async (req, res) => {
    const body = parseBody(createClientBody, req.body);
    const scope = scopeOf(req);
    const client = await insertUnique(
      () => prisma.client.create({ data: { ...scope, id: body._id ?? randomUUID(), name: body.name ?? null, phone: body.phone ?? null } }),
      () => conflict(`Client ${body._id} already exists`),
    );
    res.status(201).location(`/ext/v2/${scope.business}/clients/${client.id}`).json(clientView(client));
  });

  router.get('/clients/:clientId', async (req, res) => {
    res.json(clientView(await findOwnedClient(prisma, scopeOf(req), req.params.clientId)));
  });

  return router;
}
