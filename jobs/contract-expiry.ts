// Every minute: contracts past their approval deadline expire. Any number of server processes may
// run it at once; row locks make each contract expire once, with one event.
import { expireOverdue } from '../src/services/contracts.ts';
import type { JobDefinition } from '../src/job-system/boss.ts';
import { CONTRACT_EXPIRY_QUEUE } from '../src/job-system/queues.ts';
import type { Context } from '../src/context.ts';

export function contractExpiryJob(ctx: Context): JobDefinition {
  return {
    name: CONTRACT_EXPIRY_QUEUE,
    // Batches of 100 contracts, each a short transaction.
    expireInSeconds: 120,
    cron: '* * * * *',
    async handler() {
      const expired = await expireOverdue(ctx);
      if (expired) ctx.log.info({ expired }, 'contracts expired');
    },
  };
}
