// The embedded database's template (scripts/pglite-template.ts): built into dist/ from the
// migrations, stale once a migration is newer, and what a new DATA_DIR starts from, migrated and
// with pg-boss's schema, where an existing one opens as it is.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { hasPgliteTemplate, openDatabase, pendingMigrations, PGLITE_TEMPLATE_NAME } from '../../db/client.ts';
import { rowsOf } from '../../db/sql.ts';
import { buildPgliteTemplate } from '../../scripts/pglite-template.ts';
import { pgliteTemplateState } from '../../scripts/pglite-template-state.ts';
import { EMBEDDED_RUN } from '../helpers/runs.ts';

const dirs: string[] = [];
const tempDir = (prefix: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

// What a new DATA_DIR starts from, so the embedded database's run alone (a server Postgres has none).
describe.runIf(EMBEDDED_RUN)('the embedded database template (embedded PGlite run only)', () => {
  it('is built into dist/, and is stale once a migration is newer', async () => {
    const root = tempDir('gm-template-');
    fs.mkdirSync(path.join(root, 'db', 'migrations'), { recursive: true });
    fs.writeFileSync(path.join(root, 'db', 'migrations', '0000_first.sql'), "-- stands for the checkout's migrations\n");
    fs.writeFileSync(path.join(root, 'package-lock.json'), '{}');
    expect(pgliteTemplateState(root)).toBe('missing');
    const file = await buildPgliteTemplate(root);
    expect(file).toBe(path.join(root, 'dist', PGLITE_TEMPLATE_NAME));
    expect(fs.readFileSync(file).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b])); // gzip
    expect(pgliteTemplateState(root)).toBe('current');
    const later = new Date(Date.now() + 60_000);
    fs.utimesSync(path.join(root, 'db', 'migrations', '0000_first.sql'), later, later);
    expect(pgliteTemplateState(root)).toBe('stale');
  });

  it('is what a new DATA_DIR starts from: every migration and pg-boss schema there before the first migrate', async () => {
    // Built by the tests' global setup (tests/setup/builds.ts), as `npm install` builds it.
    expect(hasPgliteTemplate()).toBe(true);
    const dataDir = path.join(tempDir('gm-new-data-'), 'data');
    const database = await openDatabase({ dataDir });
    try {
      const { pending, total } = await pendingMigrations(database);
      expect(total).toBeGreaterThan(0);
      expect(pending).toBe(0);
      const [boss] = await rowsOf<{ name: string | null }>(database.db, sql`select to_regclass('pgboss.job')::text as name`);
      expect(boss!.name).toBe('pgboss.job');
      // A database of its own: what this one writes, the next new one does not see.
      await database.db.execute(sql`insert into app_settings (key, value) values ('template-test', 'mine')`);
    } finally {
      await database.close();
    }
    const other = await openDatabase({ dataDir: path.join(tempDir('gm-new-data-'), 'data') });
    try {
      const rows = await rowsOf(other.db, sql`select 1 from app_settings where key = 'template-test'`);
      expect(rows).toEqual([]);
    } finally {
      await other.close();
    }
    // Reopened, the first one is as it was left.
    const again = await openDatabase({ dataDir });
    try {
      expect(await rowsOf(again.db, sql`select value from app_settings where key = 'template-test'`)).toEqual([{ value: 'mine' }]);
    } finally {
      await again.close();
    }
  });
});
