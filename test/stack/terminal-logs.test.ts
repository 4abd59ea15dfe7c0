import jwt from 'jsonwebtoken';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isExpectedFailureLine, logFormatOf } from '../../src/logger';
import { prettyLine } from '../../src/pretty-log';
import { READY, stackEnv, stackPorts } from '../support/npm-start';
import { entryPointArgs, request, runProcess } from '../support/process';
import { eventually } from '../support/stack';

/* npm start at a terminal: readable lines, quiet by default; JSON lines for machines. */

/** `npm start`'s supervisor with a terminal (a pseudo-terminal from util-linux's `script`) as its output. */
const onTerminal = (env: Record<string, string>) =>
  runProcess('script', ['-qfec', `exec ${process.execPath} ${entryPointArgs('src/main/start.ts').join(' ')}`, '/dev/null'], env, READY, { ports: stackPorts(env) });

test('on a terminal npm start prints readable lines: a failed message is one message.failed line with its code and reason and no SDK warning, and no line per request unless LOG_LEVEL=debug', async () => {
  const { dataDir, env, api } = await stackEnv('crm-terminal-logs');
  // The simulator refuses Twilio's magic invalid number with 21211, as Twilio does.
  const quiet = onTerminal({ ...env, MESSAGE_PROVIDER: 'simulator' });
  let token: string;
  try {
    await quiet.ready;
    token = jwt.sign({}, (await readFile(join(dataDir, 'dev-jwt-secret'), 'utf8')).trim(), { algorithm: 'HS256', subject: 'user-1', expiresIn: '1h' });
    expect((await request(`${api}/clients`, token, 'POST', { _id: 'c1', name: 'Ada', phone: '+15005550001' })).status).toBe(201);
    const sent = await request(`${api}/messages`, token, 'POST', { message_type: 'text', client: 'c1', text_message: 'Hello Ada' });
    expect(sent.status).toBe(202);
    // Readable: time, level, event, fields; the phone and the text still redacted.
    const plain = () => quiet.output().replace(/\u001b\[\d+m/g, '');
    const line = await eventually(async () => plain().split(/\r?\n/).find((l) => l.includes('message.failed')));
    expect(line).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO  message\.failed /);
    expect(line).toContain(`id=${sent.body._id}`);
    expect(line).toContain('code=21211');
    expect(line).toMatch(/reason=".*21211.*"/);
    expect(line).not.toContain('+15005550001');
    expect(line).not.toContain('Hello Ada');
    // The run has failed by now (the UI shows it red); its failure is no warning on the terminal.
    await eventually(async () => ((await request(`${api}/messages/${sent.body._id}`, token)).body.status === 'failed' ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 3000));
  } finally {
    expect(await quiet.stop()).toBe(0);
  }
  const output = quiet.output().replace(/\u001b\[\d+m/g, '');
  expect(output.split(/\r?\n/).filter((l) => l.includes('message.failed'))).toHaveLength(1);
  expect(output).not.toMatch(/WARN .*(Activity failed|Workflow failed)/);
  expect(output).not.toContain('taskToken');
  expect(output).not.toMatch(/^\{"level"/m);
  expect(output).not.toContain('POST /clients 201');

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

test('an expected business failure is no SDK warning; any other failure still is', () => {
  const rejected = { type: 'ProviderRejected', nonRetryable: true, message: 'The recipient number is not a valid phone number (simulator error 21211)' };
  expect(isExpectedFailureLine('Activity failed', { error: rejected })).toBe(true);
  expect(isExpectedFailureLine('Activity failed', { error: new Error('database unreachable') })).toBe(false);
  expect(isExpectedFailureLine('Activity failed', { error: { ...rejected, nonRetryable: false } })).toBe(false);
  // A workflow's error arrives copied from its worker thread, without its type.
  expect(isExpectedFailureLine('Workflow failed', { workflowType: 'sendMessage', error: { message: 'Message 3f2a failed: Gave up retrying' } })).toBe(true);
  expect(isExpectedFailureLine('Workflow failed', { workflowType: 'sendMessage', error: { message: 'Cannot read properties of undefined' } })).toBe(false);
  expect(isExpectedFailureLine('Workflow failed', { workflowType: 'clientOwnership', error: { message: 'Message 3f2a failed: x' } })).toBe(false);
});

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
