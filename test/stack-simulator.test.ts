import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import jwt from 'jsonwebtoken';
import { runStack, stackEnv } from './support/npm-start';
import { entryPointEnv, PROJECT_ROOT, request } from './support/process';
import { eventually } from './support/stack';

/* The walkthrough: `npm start` with its default carrier, the simulator, and a person texting in with `npm run sms`. */

test('npm start sends through the simulator by default: its receipts make a message delivered, a magic number fails, and npm run sms texts the stack', async () => {
  const { dataDir, env, api } = await stackEnv('crm-simulator');
  const { MESSAGE_PROVIDER: _log, ...defaults } = env;
  const stack = runStack(defaults);
  try {
    await stack.ready;
    expect(stack.output()).toMatch(/Provider {5}simulator \(Twilio-shaped at http:\/\/127\.0\.0\.1:\d+, sending from \+15005550006; receipts to http:\/\/127\.0\.0\.1:\d+\/providers\/simulator\/…\)/);
    expect(stack.output()).toContain('Text in      npm run sms -- +14155550100 "STOP"');
    const secret = (await readFile(join(dataDir, 'dev-jwt-secret'), 'utf8')).trim();
    const token = jwt.sign({}, secret, { algorithm: 'HS256', subject: 'user-1', expiresIn: '1h' });
    expect((await request(`${api}/clients`, token, 'POST', { _id: 'c1', phone: '+14155550100' })).status).toBe(201);

    const hello = await request(`${api}/messages`, token, 'POST', { message_type: 'text', client: 'c1', text_message: 'Hello' });
    const delivered = await eventually(async () => {
      const message = (await request(`${api}/messages/${hello.body._id}`, token)).body;
      return message.status === 'delivered' && message;
    });
    expect(delivered).toMatchObject({ provider: 'simulator', provider_ref: expect.stringMatching(/^SM[0-9a-f]{32}$/), price: { amount: '0.00790', unit: 'USD' } });

    const invalid = await request(`${api}/messages`, token, 'POST', { message_type: 'text', client_phone: '+15005550001', text_message: 'Hello' });
    const failed = await eventually(async () => {
      const message = (await request(`${api}/messages/${invalid.body._id}`, token)).body;
      return message.status === 'failed' && message;
    });
    expect(failed.error).toBe('The recipient number is not a valid phone number (simulator error 21211)');

    const sms = await promisify(execFile)('npx', ['tsx', 'scripts/sms.ts', '+14155550100', 'Hi there'], { cwd: PROJECT_ROOT, env: entryPointEnv({ DATA_DIR: dataDir }) }).catch((error) => error);
    expect(sms.stdout).toMatch(/^\+14155550100 texted \+15005550006: "Hi there" \(SM[0-9a-f]{32}\); the stack answered \d+ at http:\/\/127\.0\.0\.1:\d+\/providers\/simulator\/inbound/);
  } finally {
    expect(await stack.stop()).toBe(0);
  }
}, 240_000);
