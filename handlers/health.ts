import type { AppContext } from '../src/context.ts';
import type { Handlers } from '../src/http/handler.ts';
import { ping } from '../db/client.ts';

export function healthHandlers(ctx: AppContext): Handlers<'getHealth'> {
  return {
    async getHealth(_request, reply) {
      const [database, jobs] = await Promise.all([ping(ctx.database), ctx.jobs.healthy()]);
      const body = {
        status: database && jobs ? 'ok' : 'unavailable',
        database: database ? 'ok' : 'unavailable',
        jobs: jobs ? 'ok' : 'unavailable',
      } as const;
      return reply.code(body.status === 'ok' ? 200 : 503).send(body);
    },
  };
}
