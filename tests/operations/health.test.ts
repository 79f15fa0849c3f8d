import { describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { rowsOf } from '../../db/sql.ts';
import { testFileServer } from '../helpers/server.ts';

const server = testFileServer();

describe('GET /api/health', () => {
  it('reports the database and the job system, without credentials', async () => {
    const res = await server.anonymous.GET('/api/health');
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({ status: 'ok', database: 'ok', jobs: 'ok' });
    expect(res.response.headers.get('x-request-id')).toMatch(/.+/);
  });

  it('echoes a well-formed x-request-id', async () => {
    const res = await server.anonymous.GET('/api/health', { headers: { 'x-request-id': 'trace-123' } });
    expect(res.response.headers.get('x-request-id')).toBe('trace-123');
  });

  it('answers 503 naming the job system once pg-boss has stopped', async () => {
    await server.runtime.jobs.stop();
    const res = await server.anonymous.GET('/api/health');
    expect(res.response.status).toBe(503);
    expect(res.error).toEqual({ status: 'unavailable', database: 'ok', jobs: 'unavailable' });
  });
});

describe("the orchestrators' probes", () => {
  const probes = testFileServer();

  it('live: 200 while the process answers, without credentials; ready: 200 with every check', async () => {
    const live = await probes.anonymous.GET('/api/health/live');
    expect(live.response.status).toBe(200);
    expect(live.data).toEqual({ status: 'ok' });
    const ready = await probes.anonymous.GET('/api/health/ready');
    expect(ready.response.status).toBe(200);
    expect(ready.data).toEqual({ status: 'ready', database: 'ok', migrations: 'ok', jobs: 'ok' });
    expect(ready.response.headers.get('ratelimit')).toBeNull(); // not rate limited
  });

  it("ready: 503 pending while the database lacks this version's latest migration, 200 again once it has it", async () => {
    const { db } = probes.runtime.database;
    const [latest] = await rowsOf<{ hash: string; created_at: string }>(
      db,
      sql`delete from drizzle.__drizzle_migrations
           where created_at = (select max(created_at) from drizzle.__drizzle_migrations) returning hash, created_at::text`,
    );
    expect(latest).toBeDefined();
    const pending = await probes.anonymous.GET('/api/health/ready');
    expect(pending.response.status).toBe(503);
    expect(pending.error).toEqual({ status: 'not_ready', database: 'ok', migrations: 'pending', jobs: 'ok' });
    await db.execute(
      sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${latest!.hash}, ${latest!.created_at}::bigint)`,
    );
    expect((await probes.anonymous.GET('/api/health/ready')).response.status).toBe(200);
  });

  it('ready: 503 draining from the moment the process drains, while live stays 200', async () => {
    probes.runtime.drain();
    const ready = await probes.anonymous.GET('/api/health/ready');
    expect(ready.response.status).toBe(503);
    expect(ready.error).toEqual({ status: 'draining', database: 'ok', migrations: 'ok', jobs: 'ok' });
    expect((await probes.anonymous.GET('/api/health/live')).response.status).toBe(200);
  });

  it('ready: 503 not_ready naming the job system once pg-boss has stopped', async () => {
    probes.runtime.lifecycle.draining = false; // as a process whose jobs failed, not one draining
    await probes.runtime.jobs.stop();
    const ready = await probes.anonymous.GET('/api/health/ready');
    expect(ready.response.status).toBe(503);
    expect(ready.error).toEqual({ status: 'not_ready', database: 'ok', migrations: 'ok', jobs: 'unavailable' });
  });
});
