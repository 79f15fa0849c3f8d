// What integrators rely on in openapi-typescript's types with openapi-fetch; `npm run check:sdks`
// typechecks it with the generated code. An unused @ts-expect-error means the types accept a body
// the API rejects.
import createClient from 'openapi-fetch';
import type { paths } from '../../.sdk-check/openapi-typescript/api.ts';
import type { ErrorEnvelope } from '../../.sdk-check/openapi-typescript/envelope.ts';
import { createBody, errorBody, missing, negotiateBody, roundBody } from './bodies.ts';

type Json<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
type Negotiate = Json<paths['/api/negotiate']['post']['requestBody']>;
type Round = Json<paths['/api/negotiations/{id}/rounds']['post']['requestBody']>;
type Create = Json<paths['/api/negotiations']['post']['requestBody']>;

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

const client = createClient<paths>({ baseUrl: 'http://localhost:3000' });
export const call = () => client.POST('/api/negotiate', { body: negotiateBody });
// @ts-expect-error negotiate(): called with a body without gig_id
export const badCall = () => client.POST('/api/negotiate', { body: missing.negotiateWithoutGig });

export const envelope: ErrorEnvelope = errorBody;
export const badRequest: Json<paths['/api/negotiations']['post']['responses'][400]> = envelope;
export const firstIssue: string | undefined = envelope.error.issues[0]?.path;
// @ts-expect-error the error envelope: a code that is not an ErrorCode
export const badCode: ErrorEnvelope['error']['code'] = 'NO_SUCH_CODE';
