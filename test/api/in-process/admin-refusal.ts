import { startTestStack, type TestStack } from '../../support/stack';

/* A refused /admin call says what to do: under npm start, where its development operator token is; elsewhere nothing more. */

const ADMIN_TOKEN = 'a'.repeat(40);
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack.stop());

const adminList = async (api: TestStack['api'], authorization?: string) => {
  const res = await api('GET', '//admin/businesses/acme/numbers', { token: authorization ?? '' });
  return { status: res.status, detail: res.body.detail, hint: res.body.hint };
};

test('under npm start (a development token file) the 401 names the file and how to send it; the token itself never', async () => {
  const file = '/srv/crm/.data/dev-admin-token';
  const { api } = await stack.startApi({ adminCredentials: { token: ADMIN_TOKEN }, adminTokenFile: file });
  for (const sent of [undefined, 'wrong-token']) {
    expect(await adminList(api, sent)).toEqual({
      status: 401,
      detail: 'Missing or invalid operator credential',
      hint: `npm start keeps its development operator token in ${file}: Authorization: Bearer $(cat ${file})`,
    });
  }
  expect(JSON.stringify(await adminList(api))).not.toContain(ADMIN_TOKEN);
  expect((await adminList(api, ADMIN_TOKEN)).status).toBe(200);
});

test('with ADMIN_TOKEN given (production has no development token) the 401 says nothing of files', async () => {
  const { api } = await stack.startApi({ adminCredentials: { token: ADMIN_TOKEN } });
  expect(await adminList(api)).toEqual({ status: 401, detail: 'Missing or invalid operator credential', hint: undefined });
});
