// The request bodies and the error envelope the usage files (scripts/sdk-check/*.usage.ts) assign to
// each generator's types: what the API accepts, and bodies it rejects with 400 because a required
// field is missing (a generator whose types accept one of those lost a requirement). Each usage
// file repeats the same assignments on purpose, against its own generator's types, so that an
// unused @ts-expect-error names both the generator (the file) and the field (the comment).
const GIG_ID = '0190a5b3-1a2b-7c3d-8e4f-5a6b7c8d9e0f';
const WORKER_ID = '0190a5b2-9e5f-7a6b-8c3d-4e5f6a7b8c9d';

/** The object without `key`, at runtime as in its type. */
export function omit<T extends object, K extends keyof T>(value: T, key: K): Omit<T, K> {
  const { [key]: _left, ...rest } = value;
  return rest;
}

const milestones = [{ title: 'Parser and tests', amount_cents: 12000, due_date: '2026-12-01' }];

/** POST /api/negotiate (negotiate): a negotiation with its first round; the terms are optional. */
export const negotiateBody = {
  gig_id: GIG_ID,
  worker_user_id: WORKER_ID,
  rate_cents: 12000,
  currency: 'EUR',
  milestones,
  notes: 'First round',
};
/** POST /api/negotiations/{id}/rounds (proposeRound): `milestones` is required. */
export const roundBody = { milestones, notes: 'Counter-proposal' };
/** POST /api/negotiations (createNegotiation). */
export const createBody = { gig_id: GIG_ID, worker_user_id: WORKER_ID };

/** Bodies the API answers 400 to: a required field is missing. */
export const missing = {
  negotiateWithoutGig: omit(negotiateBody, 'gig_id'),
  negotiateWithoutWorker: omit(negotiateBody, 'worker_user_id'),
  roundWithoutMilestones: omit(roundBody, 'milestones'),
  createWithoutGig: omit(createBody, 'gig_id'),
  createWithoutWorker: omit(createBody, 'worker_user_id'),
};

/** An error response, as every error has it. */
export const errorBody = {
  error: {
    code: 'VALIDATION_FAILED' as const,
    message: 'body.gig_id is required',
    issues: [{ path: 'body.gig_id', message: 'is required' }],
  },
};
