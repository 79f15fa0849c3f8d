// What integrators rely on in openapi-zod-client's schemas; `npm run check:sdks` typechecks it with
// the generated code (an unused @ts-expect-error means the inferred types accept a body the API
// rejects) and runs runtimeProblems(): the schemas must reject at runtime what the API rejects.
import type { z } from 'zod/v3';
import { ErrorEnvelope } from '../../.sdk-check/openapi-zod-client/envelope.ts';
import { schemas } from '../../.sdk-check/openapi-zod-client/schemas.ts';
import { createBody, errorBody, missing, negotiateBody, roundBody } from './bodies.ts';

type Negotiate = z.infer<typeof schemas.NegotiateRequest>;
type Round = z.infer<typeof schemas.RoundTerms>;
type Create = z.infer<typeof schemas.NegotiationCreate>;
type Envelope = z.infer<typeof ErrorEnvelope>;

export const validNegotiate: Negotiate = negotiateBody;
export const validRound: Round = roundBody;
export const validCreate: Create = createBody;

// @ts-expect-error negotiate: a body without gig_id
export const noGig: Negotiate = missing.negotiateWithoutGig;
// @ts-expect-error negotiate: a body without worker_user_id
export const noWorker: Negotiate = missing.negotiateWithoutWorker;
// @ts-expect-error proposeRound: a body without milestones
export const noMilestones: Round = missing.roundWithoutMilestones;
// @ts-expect-error createNegotiation: a body without gig_id
export const createNoGig: Create = missing.createWithoutGig;
// @ts-expect-error createNegotiation: a body without worker_user_id
export const createNoWorker: Create = missing.createWithoutWorker;

export const envelope: Envelope = errorBody;
export const firstIssue: string | undefined = envelope.error.issues[0]?.path;
// @ts-expect-error the error envelope: a code that is not an ErrorCode
export const badCode: Envelope['error']['code'] = 'NO_SUCH_CODE';

/** What the schemas get wrong at runtime: each entry is one problem. */
export function runtimeProblems(): string[] {
  const cases: [string, z.ZodTypeAny, string, unknown, boolean][] = [
    ['schemas.NegotiateRequest', schemas.NegotiateRequest, 'a valid negotiate body', negotiateBody, true],
    ['schemas.NegotiateRequest', schemas.NegotiateRequest, 'a body without gig_id', missing.negotiateWithoutGig, false],
    ['schemas.NegotiateRequest', schemas.NegotiateRequest, 'a body without worker_user_id', missing.negotiateWithoutWorker, false],
    ['schemas.RoundTerms', schemas.RoundTerms, 'a valid round', roundBody, true],
    ['schemas.RoundTerms', schemas.RoundTerms, 'a round without milestones', missing.roundWithoutMilestones, false],
    ['schemas.NegotiationCreate', schemas.NegotiationCreate, 'a valid body', createBody, true],
    ['schemas.NegotiationCreate', schemas.NegotiationCreate, 'a body without gig_id', missing.createWithoutGig, false],
    ['schemas.NegotiationCreate', schemas.NegotiationCreate, 'a body without worker_user_id', missing.createWithoutWorker, false],
    ['the error envelope schema', ErrorEnvelope, 'an error response', errorBody, true],
  ];
  return cases
    .filter(([, schema, , value, valid]) => schema.safeParse(value).success !== valid)
    .map(([name, , what, , valid]) =>
      valid
        ? `${name} rejects ${what} at runtime, which the API accepts`
        : `${name} accepts ${what} at runtime, which the API answers with 400`,
    );
}
