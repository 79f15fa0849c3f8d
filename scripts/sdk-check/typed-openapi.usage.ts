// What integrators rely on in typed-openapi's client; `npm run check:sdks` typechecks it with the
// generated code. An unused @ts-expect-error means the types accept a body the API rejects.
// (Its ApiClient.post has an overload taking `any`, so the endpoint types are what is checked.)
import type { Endpoints } from '../../.sdk-check/typed-openapi/api.ts';
import type { ErrorEnvelope } from '../../.sdk-check/typed-openapi/envelope.ts';
import { createBody, errorBody, missing, negotiateBody, roundBody } from './bodies.ts';

type Negotiate = Endpoints.post_Negotiate['parameters']['body'];
type Round = Endpoints.post_ProposeRound['parameters']['body'];
type Create = Endpoints.post_CreateNegotiation['parameters']['body'];

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

export const envelope: ErrorEnvelope = errorBody;
export const badRequest: Endpoints.post_CreateNegotiation['responses'][400] = envelope;
export const firstIssue: string | undefined = envelope.error.issues[0]?.path;
// @ts-expect-error the error envelope: a code that is not an ErrorCode
export const badCode: ErrorEnvelope['error']['code'] = 'NO_SUCH_CODE';
