import type { Handlers } from '../src/http/handler.ts';
import { health, readiness } from '../src/services/health.ts';

const state = (ok: boolean) => (ok ? 'ok' : 'unavailable');

export function healthHandlers(): Handlers<'getHealth' | 'getLiveness' | 'getReadiness'> {
  return {
    async getHealth(_request, reply, { ctx }) {
      const { ok, database, jobs } = await health(ctx);
      reply.code(ok ? 200 : 503);
      return { status: state(ok), database: state(database), jobs: state(jobs) };
    },
    // The process answers: nothing else is asked, so a slow database never gets it restarted.
    async getLiveness() {
      return { status: 'ok' } as const;
    },
    async getReadiness(_request, reply, { ctx }) {
      const { status, database, migrations, jobs } = await readiness(ctx);
      reply.code(status === 'ready' ? 200 : 503);
      return { status, database: state(database), migrations, jobs: state(jobs) };
    },
  };
}
