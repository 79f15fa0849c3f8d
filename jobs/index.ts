// Every job the server runs; each module exports its definition.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../src/config.ts';
import type { Db } from '../db/client.ts';
import type { JobDefinition } from './boss.ts';
import { housekeepingJob } from './housekeeping.ts';

export interface JobContext {
  config: Config;
  db: Db;
  log: FastifyBaseLogger;
}

export function allJobs(ctx: JobContext): JobDefinition<any>[] {
  return [housekeepingJob(ctx)];
}
