import { join } from 'node:path';
import { loadConfig } from '../../src/config/index';
import { isExecutable } from '../../src/stack/child-processes';
import { serverToolsDir } from '../../src/stack/temporal-server-install';
import { TEMPORAL_UI_VERSION } from '../../src/stack/temporal-ui-server';

/*
 * `npm test` on a fresh clone: the global setup builds the Temporal server engine and its UI before any
 * file runs, so that the files starting the server engine (engine-server, start-server-engine,
 * shared-tools) never spend their own timeouts on a build of several minutes, nor build it side by side.
 */
test('the server engine and its UI are built before the first test file starts', async () => {
  const { TOOLS_DIR } = loadConfig();
  const built = { server: join(serverToolsDir(TOOLS_DIR), 'server'), sqlTool: join(serverToolsDir(TOOLS_DIR), 'sql'), ui: join(TOOLS_DIR, `temporal-ui-server-${TEMPORAL_UI_VERSION}`, 'ui-server') };
  const missing = [];
  for (const [name, path] of Object.entries(built)) if (!(await isExecutable(path))) missing.push(`${name}: ${path}`);
  expect(missing).toEqual([]);
});
