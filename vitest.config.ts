import { defineConfig } from 'vitest/config';
import { LongestFirst } from './tests/setup/sequencer.ts';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Builds the dashboard (web/dist/, read by every test of `/`) and the server's bundle (dist/,
    // which tests of the server process run, as `npm start` does) once when missing or stale.
    // Migrates one template database that every file's database is a copy of (tests/setup/databases.ts).
    globalSetup: ['tests/setup/builds.ts', 'tests/setup/databases.ts'],
    // Each file starts its own server and database; three files run at a time on two cores, so
    // that one file's waits (a job's poll, a browser, a process starting) leave the cores to the
    // others. A worker process runs file after file (not isolated): the app's modules load once per
    // worker, not once per file, and tests leave no state behind but their own servers and databases.
    pool: 'forks',
    isolate: false,
    maxWorkers: 3,
    sequence: { sequencer: LongestFirst },
    // Generous: on a busy machine a test may take several times its usual time, and must not fail
    // by the clock for it; tests wait on conditions (vi.waitFor, expect.poll), never fixed sleeps.
    testTimeout: 120_000,
    // expect.poll retries for up to 30 s (vitest's default is 1 s): a browser page still settling,
    // or a job on a loaded machine, gets more patience than Playwright's own waits.
    expect: { poll: { timeout: 30_000 } },
    hookTimeout: 180_000,
  },
});
