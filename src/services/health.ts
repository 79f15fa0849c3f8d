// Whether this process can serve: its database answers and pg-boss runs (`health`), and, for an
// orchestrator's readiness probe, also that its migrations are applied and it is not draining.
import type { Context } from '../context.ts';
import { migrationsApplied, ping, type Database } from '../../db/client.ts';

export async function health(ctx: Pick<Context, 'database' | 'jobs'>) {
  const [database, jobs] = await Promise.all([ping(ctx.database), ctx.jobs.healthy()]);
  return { ok: database && jobs, database, jobs };
}

/** `ok`: every migration this version has is applied (a newer version's too is fine). */
async function migrationsState(database: Database): Promise<'ok' | 'pending' | 'unavailable'> {
  try {
    return (await migrationsApplied(database)) ? 'ok' : 'pending';
  } catch {
    return 'unavailable';
  }
}

/** Ready: not draining (SIGTERM came), the database answers, its migrations are applied and pg-boss runs. */
export async function readiness(ctx: Pick<Context, 'database' | 'jobs' | 'lifecycle'>) {
  const [database, migrations, jobs] = await Promise.all([ping(ctx.database), migrationsState(ctx.database), ctx.jobs.healthy()]);
  const status = ctx.lifecycle.draining ? 'draining' : database && migrations === 'ok' && jobs ? 'ready' : 'not_ready';
  return { status, database, migrations, jobs } as const;
}
