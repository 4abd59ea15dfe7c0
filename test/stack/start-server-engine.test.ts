import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import jwt from 'jsonwebtoken';
import { loadConfig } from '../../src/config/index';
import { installTemporalServer } from '../../src/stack/temporal-server-install';
import { installTemporalUi } from '../../src/stack/temporal-ui-server';
import { runStack, stackEnv } from '../support/npm-start';
import { request } from '../support/process';
import { eventually } from '../support/stack';

/* `TEMPORAL_ENGINE=server npm start`: the README's walkthrough on the Temporal server backed by PostgreSQL. */

/** PATH without any directory holding a `temporal`, so the CLI comes from the tools directory. */
const pathWithoutTemporal = (process.env.PATH ?? '').split(delimiter).filter((dir) => !existsSync(join(dir, 'temporal'))).join(delimiter);

test('with TEMPORAL_ENGINE=server npm start runs Temporal on its PostgreSQL with the UI, assigning and sending work, and it resumes on the same data', async () => {
  // Built when missing (minutes, once; the global setup and CI build them beforehand).
  const { TOOLS_DIR } = loadConfig();
  await installTemporalServer(TOOLS_DIR);
  await installTemporalUi(TOOLS_DIR);
  const { dataDir, env, api } = await stackEnv('crm-start-server');
  // A fresh DATA_DIR: the server and its UI built once in the tools directory (by the global setup) are found there, not built again.
  const stack = runStack({ ...env, TEMPORAL_ENGINE: 'server', PATH: pathWithoutTemporal });
  let token: string;
  let delayed: Awaited<ReturnType<typeof request>>;
  try {
    await stack.ready;
    expect(stack.output()).not.toMatch(/Building (Temporal server|the Temporal UI)/);
    expect(existsSync(join(dataDir, 'tools'))).toBe(false);
    expect(stack.output()).toContain(`Temporal     127.0.0.1:${env.TEMPORAL_PORT} (server engine: Temporal server on PostgreSQL`);
    expect(stack.output()).toContain(`Temporal UI  http://127.0.0.1:${env.TEMPORAL_UI_PORT}`);
    expect(stack.output()).toContain('Nexus        endpoint crm → namespace default, task queue crm-messaging');
    const codecToken = (await readFile(join(dataDir, 'dev-codec-token'), 'utf8')).trim();
    const settings = (await (await fetch(`http://127.0.0.1:${env.TEMPORAL_UI_PORT}/api/v1/settings`)).json()) as { Codec: { Endpoint: string } };
    expect(settings.Codec.Endpoint).toMatch(new RegExp(`^http://localhost:\\d+/codec/${codecToken}$`));

    const secret = (await readFile(join(dataDir, 'dev-jwt-secret'), 'utf8')).trim();
    token = jwt.sign({}, secret, { algorithm: 'HS256', subject: 'user-1', expiresIn: '1h' });
    expect((await request(`${api}/clients`, token, 'POST', { _id: 'c1', name: 'Ada', phone: '+1 415 555 0100' })).status).toBe(201);
    expect((await request(`${api}/agents`, token, 'POST', { _id: 'a1', name: 'Grace' })).status).toBe(201);
    const assigned = await request(`${api}/clients/c1/assign-agents`, token, 'POST', { agents: [{ agent: 'a1', dt_until: '2030-01-01' }], ds_notes: 'new lead' });
    expect(assigned.status).toBe(200);
    const sent = await request(`${api}/messages`, token, 'POST', { message_type: 'text', client: 'c1', text_message: 'Hello Ada, your order has shipped.' });
    expect(sent.status).toBe(202);
    await eventually(async () => (await request(`${api}/messages/${sent.body._id}`, token)).body.status === 'sent');

    // The UI beside the server shows this stack's workflows.
    const listed = await eventually(async () => {
      const res = await fetch(`http://127.0.0.1:${env.TEMPORAL_UI_PORT}/api/v1/namespaces/default/workflows?query=`);
      const body = (await res.json()) as { executions?: { execution: { workflowId: string } }[] };
      const ids = (body.executions ?? []).map((e) => e.execution.workflowId);
      return ids.includes(sent.body.workflow_id) ? ids : undefined;
    });
    expect(listed).toContain(assigned.body.assignments[0].workflow_id);
    delayed = await request(`${api}/messages`, token, 'POST', { message_type: 'text', client: 'c1', text_message: 'Later', delay: '8s' });
    expect(delayed.status).toBe(202);
  } finally {
    expect(await stack.stop()).toBe(0);
  }
  expect(stack.output()).not.toMatch(/database system is shutting down|Error:/);

  // Started again on the same data, the server comes back with its Schedules (the worker describes them
  // at start), the assignment and the pending message, which is sent once its time comes.
  const again = runStack({ ...env, TEMPORAL_ENGINE: 'server', PATH: pathWithoutTemporal });
  try {
    await again.ready;
    const active = await request(`${api}/clients/c1/agents`, token!);
    expect(active.body.assignments).toEqual([expect.objectContaining({ agent: 'a1', status: 'active', dt_until: '2030-01-01T00:00:00.000Z' })]);
    await eventually(async () => (await request(`${api}/messages/${delayed!.body._id}`, token!)).body.status === 'sent', 60_000);
  } finally {
    expect(await again.stop()).toBe(0);
  }
}, 900_000);
