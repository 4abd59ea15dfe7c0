import { randomUUID } from 'node:crypto';
import { Router } from 'express';
import { z } from 'zod';
import type { Prisma } from '../../db/prisma';
import { insertUnique } from '../../db/errors';
import { conflict } from '../problem';
import { scopeOf } from '../scope';
import { parseBody, resourceId } from '../validation';

const createAgentBody = z.object({
  _id: resourceId.optional(),
  name: z.string().max(200).nullish(),
});

const agentView = (a: { id: string; name: string | null; createdAt: Date }) => ({
  _id: a.id,
  name: a.name,
  created_at: a.createdAt.toISOString(),
});

export function agentsRouter(prisma: Prisma): Router {
  const router = Router({ mergeParams: true });

  router.post('/agents', async (req, res) => {
    const body = parseBody(createAgentBody, req.body);
    const scope = scopeOf(req);
    const agent = await insertUnique(
      () => prisma.agent.create({ data: { ...scope, id: body._id ?? randomUUID(), name: body.name ?? null } }),
      () => conflict(`Agent ${body._id} already exists`),
    );
    res.status(201).location(`/ext/v2/${scope.business}/agents/${agent.id}`).json(agentView(agent));
  });

  router.get('/agents', async (req, res) => {
    const agents = await prisma.agent.findMany({ where: scopeOf(req), orderBy: { createdAt: 'asc' } });
    res.json({ agents: agents.map(agentView) });
  });

  return router;
}
