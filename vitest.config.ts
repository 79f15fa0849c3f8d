import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Builds the dashboard (web/dist/, read by every test of `/`) and the server's bundle (dist/,
    // which tests of the server process run, as `npm start` does) once when missing or stale.
    // Migrates one template database that every file's database is a copy of (tests/setup/databases.ts).
    globalSetup: ['tests/setup/builds.ts', 'tests/setup/databases.ts'],
    // Each file starts its own server and database; two cores run two files at a time.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    // expect.poll retries for up to 10 s (vitest's default is 1 s): a browser page still settling,
    // or a job on a loaded machine, gets the same patience as Playwright's own waits.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 60_000,
  },
});
