import { spans } from '../../support/tracing';
import { httpMetrics } from '../../../src/api';
import { memoryLogger } from '../../support/helpers';
import { originOf, startTestStack, uniqueName, type TestApi, type TestStack } from '../../support/stack';

/*
 * A Salesforce connector's inbound URL ends in its secret: whoever reads it can post as Salesforce.
 * It is written nowhere an operator reads: not the request log, not a metric's labels, not a span.
 */

const { logger, lines } = memoryLogger();
const metrics = httpMetrics();
let stack: TestStack;
let doors: TestApi;

beforeAll(async () => {
  stack = await startTestStack();
  doors = await stack.startApi({ logger, metrics });
});
afterAll(() => stack.stop());

test('the Salesforce inbound URL\'s secret is absent from the access log, the metrics\' labels and the spans, whatever the answer', async () => {
  const token = stack.token(uniqueName('user'));
  expect((await stack.api('POST', '/agents', { token, body: { _id: 'a1' } })).status).toBe(201);
  const put = await stack.api('PUT', '/integrations/salesforce', {
    token,
    body: { agents: ['a1'], settings: { organization_id: '00D000000000001AAA', instance_url: 'https://acme.my.salesforce.com', access_token: 't' } },
  });
  expect(put.status).toBe(201);
  const path = new URL(put.body.inbound_url as string).pathname;
  const secret = path.split('/').at(-1)!;
  expect(secret.length).toBeGreaterThan(20);
  lines.length = 0;
  spans.reset();

  const origin = originOf(doors);
  const post = (url: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: '<not-an-envelope/>' });
  // The secret accepted (then the body refused), spelt in other case, with a query, and on a method no route has.
  expect((await post(`${origin}${path}`)).status).toBe(400);
  expect((await post(`${origin}${path.replace('/integrations/salesforce/', '/Integrations/Salesforce/')}?x=1`)).status).toBe(400);
  expect((await fetch(`${origin}${path}`)).status).toBe(404);
  expect((await post(`${origin}${path}/more`)).status).toBe(404);

  const requestLines = lines.filter((line) => line.event === 'http.request');
  expect(requestLines).toHaveLength(4);
  expect(requestLines[0]).toEqual(expect.objectContaining({ req: expect.objectContaining({ path: path.replace(secret, '[redacted]') }), res: { status: 400 } }));
  expect(JSON.stringify(lines)).not.toContain(secret);

  const exposition = await metrics.registry.metrics();
  expect(exposition).toContain('route="/integrations/salesforce/:business/outbound-message/:token"');
  expect(exposition).not.toContain(secret);

  const server = spans.getFinishedSpans().filter((span) => span.attributes['http.route'] === '/integrations/salesforce/:business/outbound-message/:token');
  expect(server.length).toBeGreaterThanOrEqual(2);
  const recorded = JSON.stringify(spans.getFinishedSpans().map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })));
  expect(recorded).not.toContain(secret);
});
