// External gig sources (docs/architecture.md §8): one queue, one pg-boss schedule per enabled source (keyed by the
// source's name, on the source's cron), each job syncing the source it names. SOURCES_FILE is read
// and validated when the server starts; a mistake in it stops the start with a message.
import { loadSources } from '../src/sources/config.ts';
import { syncSource } from '../src/sources/sync.ts';
import type { JobDefinition } from '../src/job-system/boss.ts';
import { SOURCE_SYNC_QUEUE, type QueuePayloads } from '../src/job-system/queues.ts';
import type { Context } from '../src/context.ts';

export function sourceSyncJob(ctx: Context): JobDefinition<QueuePayloads[typeof SOURCE_SYNC_QUEUE]> {
  const sources = loadSources(ctx.config.sourcesFile);
  const byName = new Map(sources.map((s) => [s.name, s]));
  return {
    name: SOURCE_SYNC_QUEUE,
    // Fetches of at most 15 s each (GitHub: a few pages), then one transaction.
    expireInSeconds: 300,
    schedules: sources.filter((s) => s.enabled).map((s) => ({ key: s.name, cron: s.schedule, data: { source: s.name } })),
    async handler(data) {
      const source = byName.get(data.source);
      // A job queued before the operator removed or disabled the source: nothing to do.
      if (!source || !source.enabled) {
        ctx.log.warn({ source: data.source }, 'source-sync job for a source that is not configured or not enabled; ignored');
        return;
      }
      // Failures are logged inside and wait for the next scheduled run rather than a retry now.
      await syncSource({ ...ctx, allowPrivateUrls: ctx.config.sourcesAllowPrivateUrls }, source);
    },
  };
}
