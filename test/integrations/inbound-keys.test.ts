import { InboundKeyCache, type InboundKey } from '../../src/use-cases/integrations/inbound-keys';

/* The inbound doors' key cache on its own: kept for its TTL, shared by the requests that wait on one read, forgotten on demand. */

const key = (name: string) => ({ connector: { id: name }, secrets: {} }) as unknown as InboundKey;

test('a key is read once per TTL, by concurrent requests too; forget makes the next request read it again', async () => {
  let now = 0;
  let reads = 0;
  const cache = new InboundKeyCache(30_000, () => now);
  const load = async () => {
    reads += 1;
    return key(`read-${reads}`);
  };
  const [a, b] = await Promise.all([cache.get('acme', 'hubspot', load), cache.get('acme', 'hubspot', load)]);
  expect(a).toBe(b);
  expect(reads).toBe(1);
  now = 29_999;
  expect(await cache.get('acme', 'hubspot', load)).toBe(a);
  now = 30_000;
  expect((await cache.get('acme', 'hubspot', load))?.connector.id).toBe('read-2');
  cache.forget('acme', 'hubspot');
  expect((await cache.get('acme', 'hubspot', load))?.connector.id).toBe('read-3');
  // Each business and CRM apart; "no connector" is kept too, so a flood for a name without one costs one read.
  expect(await cache.get('acme', 'pipedrive', async () => null)).toBeNull();
  expect(await cache.get('acme', 'pipedrive', load)).toBeNull();
});

test('a failed read is not kept', async () => {
  const cache = new InboundKeyCache();
  await expect(cache.get('acme', 'hubspot', async () => Promise.reject(new Error('database down')))).rejects.toThrow('database down');
  expect(await cache.get('acme', 'hubspot', async () => key('ok'))).toMatchObject({ connector: { id: 'ok' } });
});
