import type { Context } from '../src/context.ts';
import type { Handlers } from '../src/http/handler.ts';
import { health } from '../src/services/health.ts';

export function healthHandlers(ctx: Context): Handlers<'getHealth'> {
  return {
    async getHealth(_request, reply) {
      const { ok, database, jobs } = await health(ctx);
      const body = {
        status: ok ? 'ok' : 'unavailable',
        database: database ? 'ok' : 'unavailable',
        jobs: jobs ? 'ok' : 'unavailable',
      } as const;
      return reply.code(ok ? 200 : 503).send(body);
    },
  };
}
