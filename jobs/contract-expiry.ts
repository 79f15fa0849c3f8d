// Every minute: contracts past their approval deadline expire. Any number of server processes may
// run it at once; row locks make each contract expire once, with one event.
import { expireOverdue } from '../src/lifecycle/contracts.ts';
import type { JobDefinition } from './boss.ts';
import type { JobContext } from './index.ts';

export const CONTRACT_EXPIRY_QUEUE = 'contract-expiry';

export function contractExpiryJob(ctx: JobContext): JobDefinition {
  return {
    name: CONTRACT_EXPIRY_QUEUE,
    cron: '* * * * *',
    async handler() {
      const expired = await expireOverdue({ db: ctx.db });
      if (expired) ctx.log.info({ expired }, 'contracts expired');
    },
  };
}
