import { spans } from '../../support/tracing';
import { SpanKind } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { Worker } from '@temporalio/worker';
import { createWebhookProvider } from '../../../src/activities/providers/webhook';
import { scrubbedAttributes } from '../../../src/telemetry/private-attributes';
import { tracingLine, tracingSettingsOf } from '../../../src/telemetry/settings';
import { REQUEST_ID_ATTRIBUTE } from '../../../src/telemetry/span-context';
import { eventually, memoryLogger, waitForStatus } from '../../support/helpers';
import { startTestStack, type TestStack } from '../../support/stack';
import { startWebhookReceiver, type WebhookReceiver } from '../../support/webhook-receiver';

/**
 * One POST /messages followed through the OpenTelemetry spans it makes, recorded in memory: the HTTP
 * request's span is the ancestor of the workflow start, the workflow, its activity, the database
 * statements and the provider's HTTP call; and no span carries the request's personal data.
 */
const PHONE = '+14155550176';
const NAME = 'Rosalind Franklin';
const TEXT = 'Your biopsy results are in';
const USER = 'night.nurse@clinic.example';

let stack: TestStack;
let receiver: WebhookReceiver;
const { logger, lines } = memoryLogger();

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stack = await startTestStack({ provider: createWebhookProvider({ url: receiver.url, timeoutMs: 5000 }), logger });
});
afterAll(async () => {
  await stack.stop();
  await receiver.close();
});

const byId = () => new Map(spans.getFinishedSpans().map((span) => [span.spanContext().spanId, span]));

/** The span and its ancestors, nearest first, as far as they were recorded. */
function ancestry(span: ReadableSpan, index: Map<string, ReadableSpan>): ReadableSpan[] {
  const chain = [span];
  for (let parent = span.parentSpanContext && index.get(span.parentSpanContext.spanId); parent; parent = parent.parentSpanContext && index.get(parent.parentSpanContext.spanId)) chain.push(parent);
  return chain;
}

test('a message is one trace from its HTTP request to the provider call, and no span carries its personal data', async () => {
  const token = stack.token(USER);
  const created = await stack.api('POST', '/clients', { token, body: { _id: 'c-traced', name: NAME, phone: PHONE } });
  expect(created.status).toBe(201);
  const accepted = await stack.api('POST', '/messages', { token, body: { message_type: 'text', client: 'c-traced', text_message: TEXT }, headers: { 'x-request-id': 'req-traced-1' } });
  expect(accepted.status).toBe(202);
  const id = accepted.body._id as string;
  await waitForStatus(stack.api, token, id, 'sent');
  // A query string may carry a phone number; the span must not.
  await stack.api('GET', `/messages?phone=${encodeURIComponent(PHONE)}`, { token, validate: false });
  const providerUrl = new URL(receiver.url);

  const { chain, server } = await eventually(async () => {
    const index = byId();
    const providerCall = [...index.values()].find(
      (span) => span.kind === SpanKind.CLIENT && String(span.attributes['url.full'] ?? span.attributes['http.url'] ?? '').startsWith(providerUrl.origin),
    );
    if (!providerCall) return undefined;
    const chain = ancestry(providerCall, index);
    const server = chain.find((span) => span.kind === SpanKind.SERVER);
    // The workflow's own span reaches the processor when the run ends; wait for the whole line.
    return server && chain.some((span) => span.name.startsWith('RunWorkflow:')) ? { chain, server } : undefined;
  });

  expect(server.name).toBe('POST /ext/v2/:business/messages');
  expect(server.attributes[REQUEST_ID_ATTRIBUTE]).toBe('req-traced-1');
  const names = chain.slice(0, chain.indexOf(server) + 1).map((span) => span.name.split(':')[0]);
  // Nearest first: the provider's POST, the activity running it, its scheduling in the workflow, the workflow run, its start by the API.
  expect(names).toEqual(['POST', 'RunActivity', 'StartActivity', 'RunWorkflow', 'StartWorkflow', 'POST /ext/v2/']);
  expect(new Set(chain.map((span) => span.spanContext().traceId)).size).toBe(1);
  const activity = chain.find((span) => span.name.startsWith('RunActivity:'))!;
  expect(activity.attributes[REQUEST_ID_ATTRIBUTE]).toBe('req-traced-1');

  // The database statements of the same trace: parameterized, values never recorded.
  const traceId = server.spanContext().traceId;
  const index = byId();
  const statements = spans.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId && span.attributes['db.system.name'] === 'postgresql');
  expect(statements.length).toBeGreaterThan(0);
  expect(statements.some((span) => ancestry(span, index).includes(server) && /\$1/.test(String(span.attributes['db.query.text'])))).toBe(true);
  expect(statements.some((span) => ancestry(span, index).includes(activity))).toBe(true);

  // The request's log line names its request and its trace.
  const logged = lines.find((line) => line.event === 'http.request' && line.req?.id === 'req-traced-1');
  expect(logged).toEqual(expect.objectContaining({ trace_id: traceId, span_id: server.spanContext().spanId }));

  // A traced run replays on the same bundle (its spans' ids come from the run's deterministic randomness).
  const run = stack.temporal.workflow.getHandle(accepted.body.workflow_id);
  await run.result();
  await expect(Worker.runReplayHistory({ workflowBundle: { codePath: process.env.TEST_WORKFLOW_BUNDLE! } }, await run.fetchHistory(), run.workflowId)).resolves.toBeUndefined();

  const recorded = JSON.stringify(spans.getFinishedSpans().map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })));
  expect(recorded).toContain('req-traced-1'); // the check below reads what was recorded
  for (const personal of [PHONE, encodeURIComponent(PHONE), NAME, encodeURIComponent(NAME), TEXT, USER, encodeURIComponent(USER)]) expect(recorded).not.toContain(personal);
});

test('span attributes lose query strings, URL credentials, a server path beyond its route, and structured values', () => {
  expect(
    scrubbedAttributes(
      { 'http.url': `http://api.example/ext/v2/acme/agents/${USER}?phone=1`, 'http.target': `/ext/v2/acme/agents/${USER}?phone=1`, 'http.route': '/ext/v2/:business/agents', 'url.query': 'phone=1' },
      SpanKind.SERVER,
    ),
  ).toEqual({ 'http.url': 'http://api.example/ext/v2/:business/agents', 'http.target': '/ext/v2/:business/agents', 'http.route': '/ext/v2/:business/agents' });
  expect(scrubbedAttributes({ 'http.target': '/anything/at/all' }, SpanKind.SERVER)).toEqual({ 'http.target': '/:unmatched' });
  expect(scrubbedAttributes({ 'url.full': 'https://user:pw@hooks.example/in/path?token=x#f', 'url.path': '/in/path' }, SpanKind.CLIENT)).toEqual({
    'url.full': 'https://hooks.example/in/path',
    'url.path': '/in/path',
  });
  expect(scrubbedAttributes({ workflowId: 'message/acme/1', attempt: 1, memo: { x: NAME } as never, startTime: new Date() as never }, SpanKind.INTERNAL)).toEqual({
    workflowId: 'message/acme/1',
    attempt: 1,
  });
});

test('tracing is configured by the standard variables: off without an endpoint, and a protocol it cannot speak stops the boot', () => {
  expect(tracingLine({})).toMatch(/^off; to see them: docker run .*jaegertracing\/all-in-one.*OTEL_EXPORTER_OTLP_ENDPOINT=http:\/\/localhost:4318 npm start/);
  expect(tracingLine({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe('OTLP http/protobuf to http://collector:4318');
  expect(tracingLine({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('OTLP http/json to http://collector:4318');
  expect(() => tracingSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow('OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json');
  expect(() => tracingSettingsOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' })).toThrow('OTEL_EXPORTER_OTLP_ENDPOINT must be a URL, e.g. http://localhost:4318');
});
