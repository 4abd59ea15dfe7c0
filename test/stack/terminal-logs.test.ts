import jwt from 'jsonwebtoken';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { logFormatOf } from '../../src/logger';
import { prettyLine } from '../../src/pretty-log';
import { READY, stackEnv, stackPorts } from '../support/npm-start';
import { entryPointArgs, request, runProcess } from '../support/process';
import { eventually } from '../support/stack';

/* npm start at a terminal: readable lines, quiet by default; JSON lines for machines. */

/** `npm start`'s supervisor with a terminal (a pseudo-terminal from util-linux's `script`) as its output. */
const onTerminal = (env: Record<string, string>) =>
  runProcess('script', ['-qfec', `exec ${process.execPath} ${entryPointArgs('src/main/start.ts').join(' ')}`, '/dev/null'], env, READY, { ports: stackPorts(env) });

test('on a terminal npm start prints readable lines, without a line per request unless LOG_LEVEL=debug', async () => {
  const { dataDir, env, api } = await stackEnv('crm-terminal-logs');
  const quiet = onTerminal(env);
  let token: string;
  try {
    await quiet.ready;
    token = jwt.sign({}, (await readFile(join(dataDir, 'dev-jwt-secret'), 'utf8')).trim(), { algorithm: 'HS256', subject: 'user-1', expiresIn: '1h' });
    expect((await request(`${api}/clients`, token, 'POST', { _id: 'c1', name: 'Ada', phone: '+14155550100' })).status).toBe(201);
    const sent = await request(`${api}/messages`, token, 'POST', { message_type: 'text', client: 'c1', text_message: 'Hello Ada' });
    expect(sent.status).toBe(202);
    // The log provider's line, readable: time, level, event, fields; the phone still redacted.
    const line = await eventually(async () => quiet.output().split(/\r?\n/).find((l) => l.includes('message.delivered')));
    expect(line).toMatch(/^(\u001b\[\d+m)?\d\d:\d\d:\d\d\.\d{3}(\u001b\[0m)? (\u001b\[\d+m)?INFO /);
    expect(line).toContain(`id=${sent.body._id}`);
    expect(line).not.toContain('+14155550100');
    expect(line).not.toContain('Hello Ada');
  } finally {
    expect(await quiet.stop()).toBe(0);
  }
  expect(quiet.output()).not.toMatch(/^\{"level"/m);
  expect(quiet.output()).not.toContain('POST /clients 201');

  const chatty = onTerminal({ ...env, LOG_LEVEL: 'debug' });
  try {
    await chatty.ready;
    expect((await request(`${api}/clients/c1`, token!)).status).toBe(200);
    const line = await eventually(async () => chatty.output().split(/\r?\n/).find((l) => l.includes('GET /clients/c1 200')));
    expect(line).toMatch(/DEBUG.*GET \/clients\/c1 200 \d+ ms.*reqId=[\w-]+ user=user-1/);
  } finally {
    expect(await chatty.stop()).toBe(0);
  }
}, 600_000);

test('JSON lines when the output is not a terminal, in production, or LOG_FORMAT=json', () => {
  expect(logFormatOf({ NODE_ENV: 'development' }, true)).toBe('pretty');
  expect(logFormatOf({ NODE_ENV: 'development' }, false)).toBe('json');
  expect(logFormatOf({ NODE_ENV: 'production' }, true)).toBe('json');
  expect(logFormatOf({ NODE_ENV: 'development', LOG_FORMAT: 'json' }, true)).toBe('json');
  expect(logFormatOf({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' }, false)).toBe('pretty');
});

test('a readable line keeps every field and an error its stack', () => {
  const error = new Error('boom');
  const line = prettyLine(`${JSON.stringify({ level: 'error', time: '2026-11-25T20:14:03.512Z', event: 'error', requestId: 'r-1', err: { type: 'Error', message: 'boom', stack: error.stack } })}\n`);
  expect(line.split('\n')[0]).toBe('20:14:03.512 ERROR error requestId=r-1 err=boom');
  expect(line).toContain('\n    Error: boom\n    ');
  expect(prettyLine('{"level":"info","time":"2026-11-25T20:14:03.512Z","event":"message.delivered","id":"m1","to":"[redacted]","note":"two words"}')).toBe(
    '20:14:03.512 INFO  message.delivered id=m1 to=[redacted] note="two words"\n',
  );
  expect(prettyLine('not json')).toBe('not json\n');
});
