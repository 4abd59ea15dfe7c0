import { loadConfig } from '../../src/config/index';

/* SIMULATOR_PORT's setting; the simulator npm start runs on it is a journey of test/stack/journeys.test.ts. */

test('SIMULATOR_PORT defaults to 9466 and must be a port', () => {
  expect(loadConfig({}).SIMULATOR_PORT).toBe(9466);
  expect(loadConfig({ SIMULATOR_PORT: '0' }).SIMULATOR_PORT).toBe(0);
  expect(() => loadConfig({ SIMULATOR_PORT: '70000' })).toThrow('Invalid configuration: SIMULATOR_PORT:');
  expect(() => loadConfig({ SIMULATOR_PORT: 'twilio' })).toThrow('Invalid configuration: SIMULATOR_PORT:');
});
