import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/paths';
import { lockedNodeVersion } from '../support/locked-node';

/*
 * The project runs on the Node its lock file pins (Node 24 LTS), whatever Node started npm: npm run puts
 * node_modules/.bin, where the locked Node is, first on PATH.
 */

test('npm test runs on the Node locked in package-lock.json, a Node 24', () => {
  const locked = lockedNodeVersion();
  expect(locked).toMatch(/^24\.\d+\.\d+$/);
  expect(process.version).toBe(`v${locked}`);
});

test('`node --version` inside npm test prints the locked Node', () => {
  expect(execFileSync('node', ['--version'], { encoding: 'utf8' }).trim()).toBe(`v${lockedNodeVersion()}`);
});

test('package.json asks for that Node, and the Docker image is built on the same major', () => {
  const major = lockedNodeVersion()?.split('.')[0];
  expect(JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')).engines).toEqual({ node: `>=${major}` });
  const bases = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8').match(/^FROM node:\S+/gm);
  expect(bases).toEqual([`FROM node:${major}-bookworm-slim`, `FROM node:${major}-bookworm-slim`]);
});
