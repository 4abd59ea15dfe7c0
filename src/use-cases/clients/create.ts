import { randomUUID } from 'node:crypto';
import { insertClient } from '../../db/clients';
import type { Prisma } from '../../db/prisma';
import type { Scope } from '../../db/scope';
import { clientView } from '../../views/client';
import { Conflict } from '../errors';
import { parseBody } from '../input/validation';
import { NewClient } from './contract';

/** `POST /clients`: a new client, under the id the caller chose or a new one; an id the caller already has is a conflict. */
export async function createClientRequest(prisma: Prisma, scope: Scope, body: unknown) {
  const { _id, name, phone, timezone } = parseBody(NewClient, body);
  const client = await insertClient(prisma, scope, { id: _id ?? randomUUID(), name, phone: phone ?? null, timezone: timezone ?? null }, () => new Conflict(`Client ${_id} already exists`));
  return clientView(client);
}
