import type { Handlers } from '../src/http/handler.ts';
import { health } from '../src/services/health.ts';

export function healthHandlers(): Handlers<'getHealth'> {
  return {
    async getHealth(_request, reply, { ctx }) {
      const { ok, database, jobs } = await health(ctx);
      const body = {
        status: ok ? 'ok' : 'unavailable',
        database: database ? 'ok' : 'unavailable',
        jobs: jobs ? 'ok' : 'unavailable',
      } as const;
      reply.code(ok ? 200 : 503);
      return body;
    },
  };
}
