import { stopEverythingStarted } from './process';

/*
 * Run before every test file (jest's setupFilesAfterEnv, run again for each file by test/support/runner).
 * A process started in a test is stopped after it; one started in beforeAll, after the file.
 */
afterEach(() => stopEverythingStarted(), 120_000);
afterAll(() => stopEverythingStarted(true), 120_000);
