// One "world" for the spec-driven tests (authorization matrix, fuzzer): a client with gigs, workers
// who applied and were shortlisted, negotiations, an active contract with milestones and a pending
// one, completed contracts (one not reviewed yet, one reviewed by both and then disputed: the
// client's open dispute, with evidence of each party's), API keys in every state, browser sessions. Built over HTTP as the parties would, with the
// lifecycle helpers where they fit. `resourceIds` maps each path parameter of the spec to the
// world's ids, by the collection the parameter follows (`gigs/{id}`, `milestones/{milestoneId}`).
import { expect } from 'vitest';
import { eq } from 'drizzle-orm';
import { insertDelivery, insertEndpoint } from '../../db/repositories/webhooks.ts';
import { passkeys, webhookEndpoints } from '../../db/schema.ts';
import { newId } from '../../src/ids.ts';
import { newWebhookSecret } from '../../src/webhooks/signing.ts';
import type { SpecOperation } from '../../src/spec.ts';
import { jsonBodyOf, parametersOf, schemesOf, uploadOf, type OperationRequest } from './operations.ts';
import type { TestServer, TestUser as User } from './server.ts';
import { signInDev, type BrowserSession } from './session.ts';
import { formWith, pdfFile } from './files.ts';
import {
  approvedContract,
  asApproval,
  completedSandboxContract,
  negotiation,
  pendingContract,
  submitSandboxOnboarding,
} from './lifecycle.ts';

export type WorldUser = User & { session: BrowserSession };

export interface World {
  /** The gigs' client. */
  client: WorldUser;
  /** Applied to the main gig, was shortlisted, negotiated; party to both contracts. */
  worker: WorldUser;
  /** Applied to the main gig and is still `submitted`; invited to another, whose contract waits for their KYC. */
  worker2: WorldUser;
  /** Party to nothing: signed in, with a valid key, and skills of their own. */
  stranger: WorldUser;
  /** Keys of the client's in states other than active (their secrets). */
  keys: { revoked: string; rotatedOld: string; spareId: string };
  /** Per kind of resource, its ids by variant (the first variant is the one used by default). */
  ids: WorldIds;
}

export interface WorldIds {
  /** The client's API keys. */
  apiKey: { spare: string };
  user: { client: string; worker: string };
  /** `draft` first: the one no one but the client can see. */
  gig: { draft: string; open: string; pending: string; negotiating: string; kyc: string; spare1: string; spare2: string };
  application: { shortlisted: string; submitted: string; invitation: string };
  /** `agreed`: the active contract's; `pending`, `kyc`: those of the other contracts; `open`: still negotiating. */
  negotiation: { agreed: string; pending: string; open: string; kyc: string };
  /**
   * `active` (client and worker), `pending` (owner approval; client and worker), `kyc` (client and
   * worker2), `completed` (client and worker, not reviewed yet), `reviewed` (client and worker,
   * completed and reviewed by both: the client and the worker have one published review each; then
   * disputed by the client).
   */
  contract: { active: string; pending: string; kyc: string; completed: string; reviewed: string };
  /** Milestones of the active contract, and one each of the others (`completed`: released, its payout days away). */
  milestone: { first: string; second: string; pending: string; kyc: string; completed: string; disputed: string };
  /** The reviewed contract's dispute, opened by the client, `open`. */
  dispute: { open: string };
  /** Its evidence: a file of the worker's, a statement of the client's. */
  evidence: { file: string; text: string };
  /** An inbox message of the client's (a contract awaiting approval). */
  notification: { client: string };
  /** The client's webhook endpoint (disabled, at an address the URL check refuses: nothing leaves the machine). */
  webhook: { endpoint: string };
  /** A failed delivery attempt to that endpoint. */
  webhookDelivery: { failed: string };
  /** A passkey of worker2's (stored as registered; worker2 has no approval left to make). */
  passkey: { worker2: string };
}

/**
 * The world resource each path parameter names, by the path segment before it. A spec path with a
 * parameter that is not here makes the generated tests fail with a message saying to add it.
 */
export const RESOURCE_OF_PARAMETER: Record<string, keyof WorldIds> = {
  'keys/{id}': 'apiKey',
  'profile/{userId}': 'user',
  'gigs/{id}': 'gig',
  'applications/{id}': 'application',
  'negotiations/{id}': 'negotiation',
  'contracts/{id}': 'contract',
  'milestones/{milestoneId}': 'milestone',
  'messages/{id}': 'notification',
  'webhooks/{id}': 'webhook',
  'deliveries/{deliveryId}': 'webhookDelivery',
  'disputes/{id}': 'dispute',
  'evidence/{evidenceId}': 'evidence',
  'passkeys/{id}': 'passkey',
};

/**
 * Path parameters that name no one's resource, with the value the generated tests send: a
 * notification channel is the caller's own (every user has an inbox), so there is no other
 * user's to address.
 */
export const FIXED_PARAMETER: Record<string, string> = {
  'notifications/{channel}': 'inbox',
};

/** Query and body fields holding ids, by name: the resource they name, and the variant used unless told. */
export const RESOURCE_OF_FIELD: Record<string, { kind: keyof WorldIds; variant: string }> = {
  gig_id: { kind: 'gig', variant: 'open' },
  worker_user_id: { kind: 'user', variant: 'worker' },
  vouched_user_id: { kind: 'user', variant: 'worker' },
  milestone_ids: { kind: 'milestone', variant: 'disputed' },
};

export type Variants = Partial<Record<keyof WorldIds, string>>;

/** The world's id for a query or body field (`gig_id`), or undefined when the field names no resource. */
export function worldFieldId(world: World, field: string, variant: Variants = {}): string | undefined {
  const target = RESOURCE_OF_FIELD[field];
  if (!target) return undefined;
  const chosen = variant[target.kind] ?? target.variant;
  const id = (world.ids[target.kind] as Record<string, string>)[chosen];
  if (!id) throw new Error(`the world has no ${target.kind} "${chosen}"`);
  return id;
}

/** A copy of `value` (e.g. a request example) whose fields naming resources hold the world's ids. */
export function withWorldIds<T>(world: World, value: T, variant: Variants = {}): T {
  if (Array.isArray(value)) return value.map((v) => withWorldIds(world, v, variant)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        typeof v === 'string' ? (worldFieldId(world, k, variant) ?? v) : withWorldIds(world, v, variant),
      ]),
    ) as T;
  }
  return value;
}

/** The parameters of a spec path (`/api/contracts/{id}/milestones/{milestoneId}/fund`), each with the key it is looked up by. */
export function pathParameters(path: string): { name: string; key: string }[] {
  const segments = path.split('/');
  const out: { name: string; key: string }[] = [];
  segments.forEach((segment, i) => {
    const m = /^\{(.+)\}$/.exec(segment);
    if (m) out.push({ name: m[1]!, key: `${segments[i - 1]}/${segment}` });
  });
  return out;
}

/** The world's id for each path parameter of `path`; `variant` picks one of the resource's ids (else its first). */
export function worldPathIds(world: World, path: string, variant: Variants = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { name, key } of pathParameters(path)) {
    const fixed = FIXED_PARAMETER[key];
    if (fixed !== undefined) {
      out[name] = fixed;
      continue;
    }
    const kind = RESOURCE_OF_PARAMETER[key];
    if (!kind)
      throw new Error(
        `no world resource for the path parameter ${key} of ${path}: add it to RESOURCE_OF_PARAMETER in tests/helpers/world.ts`,
      );
    const ids = world.ids[kind] as Record<string, string>;
    const chosen = variant[kind] ?? Object.keys(ids)[0]!;
    if (!ids[chosen]) throw new Error(`the world has no ${kind} "${chosen}"`);
    out[name] = ids[chosen];
  }
  return out;
}

/** Required query parameters that name a world resource (`gig_id`). */
export const requiredIdQuery = (op: SpecOperation) =>
  parametersOf(op).filter((p) => p.in === 'query' && p.required && RESOURCE_OF_FIELD[p.name]);

/** A valid form for an operation that takes files (a small PDF in each file field), so that only the caller can be wrong. */
export function formFor(op: SpecOperation, text?: string): FormData | undefined {
  const upload = uploadOf(op);
  if (!upload) return undefined;
  const form = new FormData();
  for (const field of upload.fields) form.append(field, new Blob([new Uint8Array(pdfFile(text))], { type: 'application/pdf' }), 'file.pdf');
  return form;
}

/** A request to `op` on the world's resources: ids in the path and required query, the spec's example (or a valid form) as the body. */
export function requestFor(
  w: World,
  op: SpecOperation,
  headers: Record<string, string>,
  ids: Variants = {},
  body?: unknown,
): OperationRequest {
  const query: Record<string, string> = {};
  for (const p of requiredIdQuery(op)) query[p.name] = worldFieldId(w, p.name, ids)!;
  const example = jsonBodyOf(op)?.example;
  return {
    path: worldPathIds(w, op.path, ids),
    query,
    headers,
    body: body ?? (example === undefined ? undefined : withWorldIds(w, example, ids)),
    form: formFor(op),
  };
}

/** The user's credential for `op`: their API key (Bearer, else x-api-key) where keys are taken, else their session cookie. */
export function credentialsOf(user: WorldUser, op: SpecOperation): Record<string, string> {
  if (op.security.length === 0) return {};
  const schemes = schemesOf(op);
  if (schemes.has('bearerApiKey')) return { authorization: `Bearer ${user.apiKey}` };
  if (schemes.has('headerApiKey')) return { 'x-api-key': user.apiKey };
  return { cookie: user.session.cookie };
}

async function worldUser(server: TestServer, name: string, skills: string[]): Promise<WorldUser> {
  const user = await server.user(name);
  const session = await signInDev(server, { userId: user.userId });
  const patched = await user.api.PATCH('/api/profile/me', {
    body: { skills, contact_details: `${name.toLowerCase().replace(/\s+/g, '.')}@example.com` },
  });
  expect(patched.response.status).toBe(200);
  return { ...user, session };
}

export async function buildWorld(server: TestServer): Promise<World> {
  const client = await worldUser(server, 'World Client', ['design']);
  const worker = await worldUser(server, 'World Worker', ['rust', 'cli']);
  const worker2 = await worldUser(server, 'World Worker Two', ['rust']);
  const stranger = await worldUser(server, 'World Stranger', ['rust', 'go']);
  // Resumes of the client's and the worker's: a refused download is about who asks, not a missing file.
  for (const owner of [client, worker]) {
    const uploaded = await owner.api.POST('/api/profile/me/resume', {
      body: formWith('resume', pdfFile(owner.userId)) as never,
      bodySerializer: (body: unknown) => body as never,
    });
    expect(uploaded.response.status).toBe(200);
  }

  // The main gig: the worker applies and is shortlisted; worker2 applies and stays submitted.
  const gig = await client.api.POST('/api/gigs', {
    body: { title: 'Rust log parser', description: 'Parse logs in Rust.', tags: ['rust', 'cli'], rate_cents: 9000 },
  });
  expect(gig.response.status).toBe(201);
  const gigId = gig.data!.id;
  const applied = await worker.api.POST('/api/gigs/{id}/applications', {
    params: { path: { id: gigId } },
    body: { message: 'I write Rust.', proposed_rate_cents: 8500 },
  });
  expect(applied.response.status).toBe(201);
  const shortlisted = await client.api.POST('/api/applications/{id}/shortlist', { params: { path: { id: applied.data!.id } } });
  expect(shortlisted.response.status).toBe(200);
  const submitted = await worker2.api.POST('/api/gigs/{id}/applications', {
    params: { path: { id: gigId } },
    body: { message: 'Me too.' },
  });
  expect(submitted.response.status).toBe(201);

  // Negotiated, agreed, approved by both owners, the worker onboarded: an active contract.
  const negotiated = await client.api.POST('/api/negotiate', {
    body: {
      gig_id: gigId,
      worker_user_id: worker.userId,
      rate_cents: 9000,
      hours_per_week: 10,
      start_date: '2026-12-01',
      payout_delay_days: 3,
      milestones: [
        { title: 'Parser', amount_cents: 50_000 },
        { title: 'Packaging', amount_cents: 20_000, due_date: '2027-01-15' },
      ],
    },
  });
  expect(negotiated.response.status).toBe(200);
  const agreed = await worker.api.POST('/api/negotiations/{id}/agree', { params: { path: { id: negotiated.data!.id } } });
  expect(agreed.response.status).toBe(200);
  const contractId = agreed.data!.contract.id;
  expect((await client.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contractId } } })).response.status).toBe(200);
  const second = asApproval(await worker.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contractId } } }));
  expect(second.response.status).toBe(200);
  expect((await submitSandboxOnboarding(second.data!.connect_url!)).status).toBe(303);
  const active = await client.api.GET('/api/contracts/{id}', { params: { path: { id: contractId } } });
  expect(active.data!.status).toBe('active');
  const [first, last] = active.data!.milestones;

  // A second deal, from an invitation: a contract waiting for both approvals.
  const pending = await pendingContract(client, worker);
  const invitation = await client.api.GET('/api/gigs/{id}/applications', { params: { path: { id: pending.gig.id } } });
  expect(invitation.data!.data).toHaveLength(1);

  // An open negotiation (the client proposed, the worker's turn), and a contract approved by both
  // owners that waits for worker2's KYC (worker2 has no verified account yet).
  const open = await negotiation(client, worker);
  const kyc = await approvedContract(client, worker2);
  // Two completed contracts (the worker is verified by now): one for reviews to be written on,
  // and one both parties reviewed, so that each has a published review.
  const completed = await completedSandboxContract(client, worker);
  const reviewed = await completedSandboxContract(client, worker);
  for (const [author, text] of [
    [client, 'Clean code, on time.'],
    [worker, 'Clear brief, paid at once.'],
  ] as const) {
    const review = await author.api.POST('/api/contracts/{id}/reviews', {
      params: { path: { id: reviewed.contract.id } },
      body: { rating: 5, text },
    });
    expect(review.response.status).toBe(201);
  }

  // The client disputes the reviewed contract's payout (released, days away), with evidence of each
  // party's: cheaper than another contract, and its reviews are published already.
  const disputedMilestone = reviewed.contract.milestones[0]!.id;
  const dispute = await client.api.POST('/api/contracts/{id}/disputes', {
    params: { path: { id: reviewed.contract.id } },
    body: { reason: 'work_not_as_agreed', description: 'Half of the agreed files fail.', milestone_ids: [disputedMilestone] },
  });
  expect(dispute.response.status).toBe(201);
  const disputeId = dispute.data!.id;
  const statement = await client.api.POST('/api/disputes/{id}/evidence', {
    params: { path: { id: disputeId } },
    body: { text: '19 of 40 fail.' },
  });
  const evidenceFile = await worker.api.POST('/api/disputes/{id}/evidence/files', {
    params: { path: { id: disputeId } },
    body: formWith('file', pdfFile('run log')) as never,
    bodySerializer: (body: unknown) => body as never,
  });
  expect([statement.response.status, evidenceFile.response.status]).toEqual([201, 201]);

  // A draft, and two more open gigs the worker has not touched (recommendations, search pages).
  const draft = await client.api.POST('/api/gigs', { body: { title: 'Secret draft', tags: ['rust'], status: 'draft' } });
  expect(draft.response.status).toBe(201);
  const spare1 = await client.api.POST('/api/gigs', {
    body: {
      title: 'Rust CLI for invoices',
      tags: ['rust', 'cli'],
      compensation_type: 'fixed',
      compensation_min_cents: 100_000,
      compensation_max_cents: 200_000,
    },
  });
  const spare2 = await client.api.POST('/api/gigs', { body: { title: 'Rust web scraper', tags: ['rust'], rate_cents: 7000 } });
  expect([spare1.response.status, spare2.response.status]).toEqual([201, 201]);

  // Keys: a spare one (the target of key operations), a revoked one, and the old key of a rotation.
  const newKey = async (name: string) => {
    const created = await client.session.api.POST('/api/keys', { body: { name } });
    expect(created.response.status).toBe(201);
    return created.data!;
  };
  const spare = await newKey('spare agent');
  const revoked = await newKey('revoked agent');
  expect((await client.session.api.POST('/api/keys/{id}/revoke', { params: { path: { id: revoked.id } } })).response.status).toBe(200);
  const rotated = await newKey('rotated agent');
  expect((await client.session.api.POST('/api/keys/{id}/rotate', { params: { path: { id: rotated.id } } })).response.status).toBe(201);

  // The relay writes inbox messages after the events' commits: wait until every event is
  // dispatched, so that the world is still while the generated tests compare fingerprints.
  const inbox = await waitForInbox(client);
  // A webhook endpoint of the client's and one failed attempt, stored directly: the API would refuse
  // this address (TEST-NET-1), so no attempt to it can leave the machine, and it is disabled anyway.
  const endpointId = newId();
  await insertEndpoint(server.db, client.userId, {
    id: endpointId,
    url: 'https://192.0.2.10/world-hook',
    description: 'the world',
    eventTypes: null,
    secret: newWebhookSecret(),
  });
  await server.db
    .update(webhookEndpoints)
    .set({ disabledAt: new Date(), disabledReason: 'manual' })
    .where(eq(webhookEndpoints.id, endpointId));
  const failedDelivery = await insertDelivery(server.db, {
    id: newId(),
    endpointId,
    eventId: newId(),
    eventType: 'gig.created',
    attempt: 1,
    succeeded: false,
    statusCode: 500,
    durationMs: 12,
    responseExcerpt: 'boom',
    error: 'status: HTTP 500',
  });
  // Inserted as registered: no browser makes it (tests/dashboard/dashboard-passkeys.test.ts does that).
  const passkeyId = newId();
  await server.db.insert(passkeys).values({
    id: passkeyId,
    userId: worker2.userId,
    credentialId: `world-${passkeyId}`,
    publicKey: 'AQID',
    counter: 0,
    name: 'World passkey',
  });

  return {
    client,
    worker,
    worker2,
    stranger,
    keys: { revoked: revoked.key, rotatedOld: rotated.key, spareId: spare.id },
    ids: {
      apiKey: { spare: spare.id },
      user: { client: client.userId, worker: worker.userId },
      gig: {
        draft: draft.data!.id,
        open: gigId,
        pending: pending.gig.id,
        negotiating: open.gig.id,
        kyc: kyc.gig.id,
        spare1: spare1.data!.id,
        spare2: spare2.data!.id,
      },
      application: { shortlisted: applied.data!.id, submitted: submitted.data!.id, invitation: invitation.data!.data[0]!.id },
      negotiation: { agreed: negotiated.data!.id, pending: pending.negotiation.id, open: open.negotiation.id, kyc: kyc.negotiation.id },
      contract: {
        active: contractId,
        pending: pending.contract.id,
        kyc: kyc.contract.id,
        completed: completed.contract.id,
        reviewed: reviewed.contract.id,
      },
      dispute: { open: disputeId },
      evidence: { file: evidenceFile.data!.id, text: statement.data!.id },
      webhook: { endpoint: endpointId },
      webhookDelivery: { failed: failedDelivery.id },
      milestone: {
        first: first!.id,
        second: last!.id,
        pending: pending.contract.milestones[0]!.id,
        kyc: kyc.contract.milestones[0]!.id,
        completed: completed.contract.milestones[0]!.id,
        disputed: disputedMilestone,
      },
      notification: { client: inbox },
      passkey: { worker2: passkeyId },
    },
  };
}

/** The id of one of the user's inbox messages, once the relay has written it. */
async function waitForInbox(user: User): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const res = await user.api.GET('/api/notifications/inbox/messages', { params: { query: { limit: 1 } } });
    const id = res.data?.data[0]?.id;
    if (id) return id;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('no inbox message arrived for the world');
}
