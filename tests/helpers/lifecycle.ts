// Walks a gig to the states tests start from (created, applied to, shortlisted, negotiated,
// contracted, funded, disputed), over HTTP, as the parties would.
import { expect } from 'vitest';
import type { components, operations } from '../../src/generated/api.d.ts';
import type { TestUser as User } from './server.ts';

export interface Milestone {
  title: string;
  amount_cents: number;
  due_date?: string | null;
}

type NewGig = Partial<operations['createGig']['requestBody']['content']['application/json']>;
type NewApplication = NonNullable<operations['applyToGig']['requestBody']>['content']['application/json'];

/** A new gig of `client`'s: 'Build a Rust CLI', tagged rust, open, unless `body` says otherwise. */
export async function createdGig(client: User, body: NewGig = {}) {
  const gig = await client.api.POST('/api/gigs', { body: { title: 'Build a Rust CLI', tags: ['rust'], ...body } });
  expect(gig.response.status).toBe(201);
  return gig.data!;
}

/** A new gig of `client`'s with `worker`'s application on it, submitted. */
export async function appliedGig(client: User, worker: User, application: NewApplication = { message: 'Me.' }, gig: NewGig = {}) {
  const created = await createdGig(client, gig);
  const applied = await worker.api.POST('/api/gigs/{id}/applications', { params: { path: { id: created.id } }, body: application });
  expect(applied.response.status).toBe(201);
  return { gig: created, application: applied.data! };
}

/** A gig of `client`'s with `worker` shortlisted on it. */
export async function shortlistedGig(client: User, worker: User) {
  const gig = await createdGig(client);
  const invited = await client.api.POST('/api/gigs/{id}/shortlist', {
    params: { path: { id: gig.id } },
    body: { worker_user_id: worker.userId },
  });
  expect(invited.response.status).toBe(201);
  return gig;
}

/** An open negotiation with the client's first round. */
export async function negotiation(client: User, worker: User, milestones: Milestone[] = [{ title: 'All of it', amount_cents: 10_000 }]) {
  const gig = await shortlistedGig(client, worker);
  const res = await client.api.POST('/api/negotiate', {
    body: {
      gig_id: gig.id,
      worker_user_id: worker.userId,
      rate_cents: 8000,
      hours_per_week: 10,
      start_date: '2026-12-01',
      payout_delay_days: 3,
      milestones,
    },
  });
  expect(res.response.status).toBe(200);
  return { gig, negotiation: res.data! };
}

type ApproveResult = components['schemas']['ApproveResult'];

/**
 * An approve's response as an approval (200): its body typed so, and a test that gets the 202 of an
 * owner who confirms instead fails here, by name. Tests of that policy read the 202 themselves.
 */
export function asApproval<R extends { data?: ApproveResult | components['schemas']['OwnerConfirmationRequired'] }>(
  res: R,
): Omit<R, 'data'> & { data?: ApproveResult } {
  if (res.data && !('contract' in res.data))
    throw new Error(`the approval asked the owner to confirm instead: ${JSON.stringify(res.data)}`);
  return res as Omit<R, 'data'> & { data?: ApproveResult };
}

/** A contract in pending_owner_approval (the worker agreed to the client's round). */
export async function pendingContract(client: User, worker: User, milestones?: Milestone[]) {
  const { gig, negotiation: n } = await negotiation(client, worker, milestones);
  const agreed = await worker.api.POST('/api/negotiations/{id}/agree', { params: { path: { id: n.id } } });
  expect(agreed.response.status).toBe(200);
  return { gig, negotiation: agreed.data!.negotiation, contract: agreed.data!.contract };
}

/** Both owners approved: pending_freelancer_kyc, with the worker's onboarding link. */
export async function approvedContract(client: User, worker: User, milestones?: Milestone[]) {
  const { gig, negotiation: n, contract } = await pendingContract(client, worker, milestones);
  const first = await client.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contract.id } } });
  expect(first.response.status).toBe(200);
  const second = asApproval(await worker.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contract.id } } }));
  expect(second.response.status).toBe(200);
  expect(second.data!.contract.status).toBe('pending_freelancer_kyc');
  expect(second.data!.connect_url).toEqual(expect.any(String));
  return { gig, negotiation: n, contract: second.data!.contract, connectUrl: second.data!.connect_url! };
}

/**
 * Submits the sandbox provider's onboarding page for a connect_url, as the worker's browser does
 * (a form post of the link's token and return URL). Returns the raw response.
 */
export async function submitSandboxOnboarding(connectUrl: string, init: { json?: boolean; token?: string; returnUrl?: string } = {}) {
  const url = new URL(connectUrl);
  const form = {
    token: init.token ?? url.searchParams.get('token') ?? '',
    return_url: init.returnUrl ?? url.searchParams.get('return_url') ?? '',
  };
  return fetch(
    url.origin + url.pathname,
    init.json
      ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(form) }
      : {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(form),
          redirect: 'manual',
        },
  );
}

/** An active contract on a server running the sandbox provider (onboarding done on its page). */
export async function activeSandboxContract(client: User, worker: User, milestones?: Milestone[]) {
  const approved = await approvedContract(client, worker, milestones);
  const done = await submitSandboxOnboarding(approved.connectUrl);
  expect(done.status).toBe(303);
  const contract = await client.api.GET('/api/contracts/{id}', { params: { path: { id: approved.contract.id } } });
  expect(contract.data!.status).toBe('active');
  return { ...approved, contract: contract.data! };
}

/**
 * A completed contract on a server running the sandbox provider: one milestone of 0 (funded
 * without a payment), approved by both owners (the worker onboarded on the sandbox's page if they
 * had not been), funded and released by the client.
 */
export async function completedSandboxContract(client: User, worker: User) {
  const { gig, contract: pending } = await pendingContract(client, worker, [{ title: 'All of it', amount_cents: 0 }]);
  const id = pending.id;
  expect((await client.api.POST('/api/contracts/{id}/approve', { params: { path: { id } } })).response.status).toBe(200);
  const second = asApproval(await worker.api.POST('/api/contracts/{id}/approve', { params: { path: { id } } }));
  expect(second.response.status).toBe(200);
  if (second.data!.connect_url) expect((await submitSandboxOnboarding(second.data!.connect_url)).status).toBe(303);
  const milestoneId = pending.milestones[0]!.id;
  const funded = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', { params: { path: { id, milestoneId } } });
  expect(funded.data?.milestone.status).toBe('funded');
  const released = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', {
    params: { path: { id, milestoneId } },
  });
  expect(released.data?.contract.status).toBe('completed');
  return { gig, contract: released.data!.contract };
}

/** Pays a sandbox payment on its pay page, as the client's browser (or agent) does. */
export async function payOnSandboxPage(paymentPageUrl: string, clientSecret: string) {
  const res = await fetch(paymentPageUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_secret: clientSecret }),
  });
  expect(res.status).toBe(200);
}

/**
 * An active contract on a sandbox server whose milestones are all funded (paid on the sandbox's
 * page); the worker onboards on the sandbox's page if they had not.
 */
export async function fundedSandboxContract(client: User, worker: User, milestones?: Milestone[]) {
  const { gig, negotiation: n, contract: pending } = await pendingContract(client, worker, milestones);
  const id = pending.id;
  expect((await client.api.POST('/api/contracts/{id}/approve', { params: { path: { id } } })).response.status).toBe(200);
  const second = asApproval(await worker.api.POST('/api/contracts/{id}/approve', { params: { path: { id } } }));
  expect(second.response.status).toBe(200);
  if (second.data!.connect_url) expect((await submitSandboxOnboarding(second.data!.connect_url)).status).toBe(303);
  for (const m of pending.milestones) {
    const res = await client.api.POST('/api/contracts/{id}/milestones/{milestoneId}/fund', { params: { path: { id, milestoneId: m.id } } });
    expect(res.response.status).toBe(200);
    if (res.data!.payment_page_url) await payOnSandboxPage(res.data!.payment_page_url, res.data!.client_secret!);
  }
  const funded = await client.api.GET('/api/contracts/{id}', { params: { path: { id } } });
  expect(funded.data!.milestones.map((m) => m.status)).toEqual(pending.milestones.map(() => 'funded'));
  return { gig, negotiation: n, contract: funded.data! };
}

/** A dispute on a funded sandbox contract's one milestone, opened by the client and answered by the worker. */
export async function respondedDispute(client: User, worker: User) {
  const { contract } = await fundedSandboxContract(client, worker, [{ title: 'Parser', amount_cents: 5_000 }]);
  const opened = await client.api.POST('/api/contracts/{id}/disputes', {
    params: { path: { id: contract.id } },
    body: { reason: 'work_not_as_agreed', description: 'Half the files fail.', milestone_ids: [contract.milestones[0]!.id] },
  });
  expect(opened.response.status).toBe(201);
  const id = opened.data!.id;
  const answered = await worker.api.POST('/api/disputes/{id}/response', {
    params: { path: { id } },
    body: { text: 'They pass the agreed checks.' },
  });
  expect(answered.response.status).toBe(200);
  return { contract, disputeId: id };
}
