// Whether this process can serve: its database answers and pg-boss runs.
import type { Context } from '../context.ts';
import { ping } from '../../db/client.ts';

export async function health(ctx: Pick<Context, 'database' | 'jobs'>) {
  const [database, jobs] = await Promise.all([ping(ctx.database), ctx.jobs.healthy()]);
  return { ok: database && jobs, database, jobs };
}
