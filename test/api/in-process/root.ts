import { startTestStack, type TestStack } from '../../support/stack';

/* The server's bare address points to its description: a person who opens it, or curls it, finds /docs from there. */

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

test('GET / answers where the description, the API and the health checks are, with no token', async () => {
  const res = await stack.api('GET', '//');
  expect({ status: res.status, type: res.headers.get('content-type'), body: res.body }).toEqual({
    status: 200,
    type: expect.stringMatching(/^application\/json/),
    body: { docs: '/docs', openapi: '/openapi.json', api: '/ext/v2/{businessname}', health: '/healthz', ready: '/readyz' },
  });
});

test('a browser opening / is sent to /docs', async () => {
  const origin = stack.baseUrl.replace(/\/ext\/v2\/.*$/, '');
  const res = await fetch(`${origin}/`, { redirect: 'manual', headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
  expect({ status: res.status, location: res.headers.get('location') }).toEqual({ status: 302, location: '/docs' });
  expect((await fetch(`${origin}/`, { headers: { accept: 'text/html' } })).url).toBe(`${origin}/docs`);
});
