// The order files start in: the longest first (real server and CLI processes, time-budgeted
// fuzzing, jobs on a clock), so that none of them starts near the end of a run and keeps it
// waiting while the other worker has nothing left; the rest in vitest's own order (the slowest of
// the last run first, else the largest).
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The longest files, longest first. */
const LONGEST = [
  'tests/spec/fuzz.test.ts',
  'tests/operations/cli.test.ts',
  'tests/operations/idempotency-crash-phases.test.ts',
  'tests/operations/server-process.test.ts',
  'tests/operations/idempotency-crash.test.ts',
  'tests/credits/credits-cli.test.ts',
  'tests/events-webhooks/notification-email.test.ts',
  'tests/contracts/contract-expiry.test.ts',
  'tests/contracts/milestones.test.ts',
  'tests/gigs/sources-cli.test.ts',
];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const i = LONGEST.findIndex((name) => file.moduleId.endsWith(name));
      return i === -1 ? LONGEST.length : i;
    };
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
