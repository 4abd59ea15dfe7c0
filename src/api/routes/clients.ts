import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import type { Prisma } from '../../db/prisma';
import { conflict, notFound } from '../problem';
import { scopeOf } from '../scope';
import { parseBody, phoneNumber, RESOURCE_ID_PATTERN, resourceId } from '../validation';
import { isUniqueViolation } from '../../db/errors';

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
    try {
      const client = await prisma.client.create({
        data: { ...scope, id: body._id ?? randomUUID(), name: body.name ?? null, phone: body.phone ?? null },
      });
      res.status(201).location(`/ext/v2/${scope.business}/clients/${client.id}`).json(clientView(client));
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`Client ${body._id} already exists`);
      throw error;
    }
  });

  router.get('/clients/:clientId', async (req, res) => {
    const id = req.params.clientId;
    const client = RESOURCE_ID_PATTERN.test(id)
      ? await prisma.client.findUnique({ where: { business_ownerId_id: { ...scopeOf(req), id } } })
      : null;
    if (!client) throw notFound('Client not found');
    res.json(clientView(client));
  });

  return router;
}
