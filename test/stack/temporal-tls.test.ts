import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';
import { loadConfig } from '../../src/config/index';
import { openServices, runWorker } from '../../src/main/services';
import { connectTemporalClient } from '../../src/temporal-client/connection';
import { quietTemporalRuntime, uniqueName } from '../support/helpers';
import { testDirSync } from '../support/temp-dir';

/*
 * The dev server speaks plain gRPC, so a local TLS endpoint stands in front of it: it requires a client
 * certificate signed by the test CA (mTLS) and forwards the decrypted stream to the dev server.
 */
const dir = testDirSync('temporal-tls-');
const file = (name: string) => join(dir, name);
const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });

function issueCertificates() {
  openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=test-ca', '-keyout', file('ca.key'), '-out', file('ca.pem'));
  for (const [name, cn] of [['server', 'temporal.test'], ['client', 'crm-worker']]) {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${cn}`, '-keyout', file(`${name}.key`), '-out', file(`${name}.csr`));
    writeFileSync(file(`${name}.ext`), name === 'server' ? 'subjectAltName=DNS:temporal.test\n' : 'extendedKeyUsage=clientAuth\n');
    openssl('x509', '-req', '-in', file(`${name}.csr`), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-days', '1', '-extfile', file(`${name}.ext`), '-out', file(`${name}.pem`));
  }
}

let proxy: Server;
let proxyAddress: string;
const sockets = new Set<Socket>();
let handshakes = 0;
const refusedHandshakes: string[] = [];

beforeAll(async () => {
  quietTemporalRuntime();
  issueCertificates();
  const [host, port] = process.env.TEST_TEMPORAL_ADDRESS!.split(':');
  proxy = createServer(
    { key: readFileSync(file('server.key')), cert: readFileSync(file('server.pem')), ca: readFileSync(file('ca.pem')), requestCert: true, rejectUnauthorized: true, ALPNProtocols: ['h2'] },
    (tlsSocket) => {
      handshakes++;
      const upstream = connect(Number(port), host);
      for (const s of [tlsSocket, upstream]) {
        sockets.add(s);
        s.on('error', () => undefined).on('close', () => sockets.delete(s));
      }
      tlsSocket.pipe(upstream).pipe(tlsSocket);
    },
  );
  proxy.on('tlsClientError', (error) => refusedHandshakes.push(error.message));
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyAddress = `127.0.0.1:${(proxy.address() as { port: number }).port}`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((resolve) => proxy.close(resolve));
});

const tlsEnv = () => ({
  DATABASE_URL: process.env.TEST_DATABASE_URL,
  TEMPORAL_ADDRESS: proxyAddress,
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: file('ca.pem'),
  TEMPORAL_TLS_SERVER_NAME: 'temporal.test',
  TEMPORAL_TLS_CLIENT_CERT_PATH: file('client.pem'),
  TEMPORAL_TLS_CLIENT_KEY_PATH: file('client.key'),
  TEMPORAL_TASK_QUEUE: uniqueName('tls'),
});

test('the client and the worker reach Temporal over mutual TLS configured by TEMPORAL_TLS_* variables', async () => {
  const services = await openServices(loadConfig(tlsEnv()));
  const before = handshakes;
  const worker = await runWorker(services, { workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } });
  try {
    const handle = await services.temporal.workflow.start('clientOwnership', {
      taskQueue: services.taskQueue,
      workflowId: uniqueName('tls-probe'),
      args: [{ business: 'tls', clientId: 'c', clientPk: '00000000-0000-0000-0000-000000000000' }],
    });
    // No such client: the worker (over TLS) reads its rows once and runs it to its end at once.
    expect(await handle.result()).toEqual({ outcome: 'idle' });
    expect(handshakes).toBeGreaterThan(before);
  } finally {
    await worker.stop();
    await services.stop();
  }
});

test('without the client certificate the TLS endpoint refuses the connection', async () => {
  const { TEMPORAL_TLS_CLIENT_CERT_PATH: _cert, TEMPORAL_TLS_CLIENT_KEY_PATH: _key, ...withoutClientCert } = tlsEnv();
  const config = loadConfig(withoutClientCert);
  // The endpoint's refusal is what fails the connection, seen on its side: no need to wait out the SDK's default 10 s.
  const options = { ...config.temporalConnection, connectTimeout: '3s' };
  await expect(connectTemporalClient(config.TEMPORAL_ADDRESS!, config.TEMPORAL_NAMESPACE, options)).rejects.toThrow();
  expect(refusedHandshakes).toEqual(expect.arrayContaining([expect.stringMatching(/certificate/i)]));
});

describe('the Temporal connection settings', () => {
  test('an API key turns TLS on and is sent', () => {
    expect(loadConfig({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_API_KEY: 'key-1' }).temporalConnection).toMatchObject({ apiKey: 'key-1', tls: true });
  });

  test('TEMPORAL_GRPC_META_* become gRPC metadata', () => {
    expect(loadConfig({ TEMPORAL_GRPC_META_X_TENANT: 'acme' }).temporalConnection.metadata).toEqual({ 'x-tenant': 'acme' });
  });

  test('a profile of a TOML file gives the address and namespace; the environment wins over it', () => {
    const toml = file('temporal.toml');
    writeFileSync(toml, '[profile.prod]\naddress = "prod.example:7233"\nnamespace = "crm-prod"\n');
    expect(loadConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'prod' })).toMatchObject({ TEMPORAL_ADDRESS: 'prod.example:7233', TEMPORAL_NAMESPACE: 'crm-prod' });
    expect(loadConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'prod', TEMPORAL_NAMESPACE: 'other' }).TEMPORAL_NAMESPACE).toBe('other');
  });

  test('a certificate path that does not exist stops the process with a clear reason', () => {
    expect(() => loadConfig({ TEMPORAL_TLS_CLIENT_CERT_PATH: file('missing.pem'), TEMPORAL_TLS_CLIENT_KEY_PATH: file('missing.key') })).toThrow(
      /^Invalid configuration: Temporal connection \(TEMPORAL_TLS_\*, TEMPORAL_API_KEY, TEMPORAL_PROFILE\): .*missing/,
    );
  });

  test('without any of it, a plain connection to the default namespace', () => {
    expect(loadConfig({})).toMatchObject({ TEMPORAL_NAMESPACE: 'default', temporalConnection: { apiKey: undefined, tls: undefined } });
  });
});
