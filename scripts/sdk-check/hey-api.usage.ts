// What integrators rely on in @hey-api/openapi-ts's client; `npm run check:sdks` typechecks it with
// the generated code. An unused @ts-expect-error means the types accept a body the API rejects.
import type { ErrorEnvelope } from '../../.sdk-check/hey-api/envelope.ts';
import { negotiate } from '../../.sdk-check/hey-api/sdk.gen.ts';
import type {
  CreateNegotiationData,
  CreateNegotiationErrors,
  NegotiateData,
  ProposeRoundData,
} from '../../.sdk-check/hey-api/types.gen.ts';
import { createBody, errorBody, missing, negotiateBody, roundBody } from './bodies.ts';

type Negotiate = NegotiateData['body'];
type Round = ProposeRoundData['body'];
type Create = CreateNegotiationData['body'];

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

export const call = () => negotiate({ body: negotiateBody });
// @ts-expect-error negotiate(): called with a body without gig_id
export const badCall = () => negotiate({ body: missing.negotiateWithoutGig });

export const envelope: ErrorEnvelope = errorBody;
export const badRequest: CreateNegotiationErrors[400] = envelope;
export const firstIssue: string | undefined = envelope.error.issues[0]?.path;
// @ts-expect-error the error envelope: a code that is not an ErrorCode
export const badCode: ErrorEnvelope['error']['code'] = 'NO_SUCH_CODE';
