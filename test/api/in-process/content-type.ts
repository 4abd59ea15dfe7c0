import { openApiDocument } from '../../../src/api/openapi/document';
import { startTestStack, type TestStack } from '../../support/stack';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const json = JSON.stringify({ _id: 'typed-client', name: 'Ann', phone: '+14155550177' });

test('a body declared as text or a form is a 415 and stores nothing', async () => {
  const token = stack.token('content-type-user');
  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
    const res = await stack.api('POST', '/clients', { token, rawBody: json, headers: { 'content-type': contentType } });
    expect([contentType, res.status, res.headers.get('content-type'), res.body.detail]).toEqual([
      contentType,
      415,
      expect.stringContaining('application/problem+json'),
      'Content-Type must be application/json',
    ]);
  }
  const noType = await fetch(`${stack.baseUrl}/clients`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: new Blob([json]),
  });
  expect(noType.status).toBe(415);
  expect(await stack.prisma.client.count({ where: { business: stack.business, id: 'typed-client' } })).toBe(0);
});

test('application/json, with a charset or as a +json type, is read', async () => {
  const token = stack.token('content-type-user-2');
  const plain = await stack.api('POST', '/clients', { token, rawBody: json, headers: { 'content-type': 'application/json; charset=utf-8' } });
  expect(plain.status).toBe(201);
  const suffixed = await stack.api('POST', '/agents', { token, rawBody: '{"_id":"typed-agent"}', headers: { 'content-type': 'application/vnd.api+json' } });
  expect(suffixed.status).toBe(201);
});

test('a POST without a body needs no Content-Type', async () => {
  const token = stack.token('content-type-user-3');
  const res = await stack.api('POST', '/messages/7616bcb2-cfcf-48ac-9ea5-d07f6dce2ea4/cancel', { token });
  expect(res.status).toBe(404);
});

test('the description /docs shows says what the server does with a body not declared JSON: a 415, with the detail it gives', async () => {
  const res = await stack.api('POST', '/clients', { token: stack.token('content-type-user-4'), rawBody: json, headers: { 'content-type': 'text/plain' } });
  expect(res.status).toBe(415);
  const { description } = openApiDocument.info as { description: string };
  expect(description).not.toMatch(/whatever their `Content-Type`/);
  expect(description).toContain(`415 \`${res.body.detail}\``);
  const examples = Object.values<{ value: { detail: string } }>(openApiDocument.components.responses.UnsupportedMediaType.content['application/problem+json'].examples);
  expect(examples.map((example) => example.value.detail)).toContain(res.body.detail);
});
