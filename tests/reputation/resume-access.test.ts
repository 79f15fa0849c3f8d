// Who may read a worker's resume, and for how long (issue 36, item 4): a client in a relation the
// worker took part in (an application the worker made, an invitation the worker answered by
// negotiating, a contract), only while that relation lasts. An invitation alone, which any user
// can send for 1 credit, gives nothing. Over HTTP; the worker's file is real (tests/helpers/files.ts).
import { describe, expect, it } from 'vitest';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { expectError } from '../helpers/expect-error.ts';
import { completedSandboxContract, negotiation, pendingContract } from '../helpers/lifecycle.ts';
import { formWith, pdfFile } from '../helpers/files.ts';
import { expireOverdue } from '../../src/services/contracts.ts';

const server = testFileServer();

/** A worker with a resume on file, and a client who has nothing to do with them yet. */
async function pair() {
  const worker = await server.user('Resume Worker');
  const uploaded = await worker.api.POST('/api/profile/me/resume', {
    body: formWith('resume', pdfFile('Worker')) as never,
    bodySerializer: (body: unknown) => body as never,
  });
  expect(uploaded.response.status).toBe(200);
  return { worker, client: await server.user('Resume Client') };
}

const download = (worker: User, as: User) =>
  as.api.GET('/api/profile/{userId}/resume', { params: { path: { userId: worker.userId } }, parseAs: 'arrayBuffer' });

async function expectReadable(worker: User, client: User) {
  expect((await download(worker, client)).response.status).toBe(200);
}
async function expectHidden(worker: User, client: User) {
  expectError(await download(worker, client), 404, 'NOT_FOUND');
}

const newGig = async (client: User, title = 'Resume gig') =>
  (await client.api.POST('/api/gigs', { body: { title, tags: ['rust'] } })).data!;
const closeGig = async (client: User, id: string) =>
  expect((await client.api.PATCH('/api/gigs/{id}', { params: { path: { id } }, body: { status: 'closed' } })).response.status).toBe(200);

async function apply(worker: User, gigId: string) {
  const res = await worker.api.POST('/api/gigs/{id}/applications', { params: { path: { id: gigId } }, body: { message: 'Me.' } });
  expect(res.response.status).toBe(201);
  return res.data!;
}

const round = { rate_cents: 9000, hours_per_week: 10, start_date: '2026-12-01', payout_delay_days: 3, milestones: [] };

describe('an invitation', () => {
  it('gives the inviter nothing while the worker has not answered it, even with a negotiation only the client spoke in', async () => {
    const { worker, client } = await pair();
    const gig = await newGig(client);
    const invited = await client.api.POST('/api/gigs/{id}/shortlist', {
      params: { path: { id: gig.id } },
      body: { worker_user_id: worker.userId },
    });
    expect(invited.response.status).toBe(201);
    await expectHidden(worker, client);
    // The client opens a negotiation with a first round: still nothing from the worker.
    const opened = await client.api.POST('/api/negotiate', { body: { gig_id: gig.id, worker_user_id: worker.userId, ...round } });
    expect(opened.response.status).toBe(200);
    await expectHidden(worker, client);
  });

  it('is answered by negotiating: readable once the worker proposes a round, until the negotiation is cancelled without a contract', async () => {
    const { worker, client } = await pair();
    const { negotiation: n } = await negotiation(client, worker);
    await expectHidden(worker, client);
    const answered = await worker.api.POST('/api/negotiations/{id}/rounds', { params: { path: { id: n.id } }, body: round });
    expect(answered.response.status).toBe(201);
    await expectReadable(worker, client);
    const cancelled = await client.api.POST('/api/negotiations/{id}/cancel', { params: { path: { id: n.id } } });
    expect(cancelled.data!.status).toBe('cancelled');
    await expectHidden(worker, client);
  });
});

describe('an application the worker made', () => {
  it('is readable while submitted or shortlisted, and not once the worker withdraws it', async () => {
    const { worker, client } = await pair();
    const application = await apply(worker, (await newGig(client)).id);
    await expectReadable(worker, client);
    await client.api.POST('/api/applications/{id}/shortlist', { params: { path: { id: application.id } } });
    await expectReadable(worker, client);
    const withdrawn = await worker.api.POST('/api/applications/{id}/withdraw', { params: { path: { id: application.id } } });
    expect(withdrawn.data!.status).toBe('withdrawn');
    await expectHidden(worker, client);
  });

  it('ends when the client rejects it', async () => {
    const { worker, client } = await pair();
    const application = await apply(worker, (await newGig(client)).id);
    const rejected = await client.api.POST('/api/applications/{id}/reject', { params: { path: { id: application.id } } });
    expect(rejected.data!.status).toBe('rejected');
    await expectHidden(worker, client);
  });

  it('ends when the client closes the gig', async () => {
    const { worker, client } = await pair();
    const gig = await newGig(client);
    await apply(worker, gig.id);
    await closeGig(client, gig.id);
    await expectHidden(worker, client);
  });

  it('on another gig of the client keeps it readable when one relation ends', async () => {
    const { worker, client } = await pair();
    const first = await apply(worker, (await newGig(client, 'First')).id);
    await apply(worker, (await newGig(client, 'Second')).id);
    await worker.api.POST('/api/applications/{id}/withdraw', { params: { path: { id: first.id } } });
    await expectReadable(worker, client);
  });
});

describe('a contract', () => {
  it('keeps it readable while it stands, whatever becomes of the gig: a completed one, its gig closed', async () => {
    const { worker, client } = await pair();
    const { gig } = await completedSandboxContract(client, worker);
    await closeGig(client, gig.id);
    await expectReadable(worker, client);
  });

  it('ends when it is cancelled before it binds', async () => {
    const { worker, client } = await pair();
    const { gig, contract } = await pendingContract(client, worker);
    await closeGig(client, gig.id); // the gig no longer counts: only the contract does
    await expectReadable(worker, client);
    const cancelled = await client.api.POST('/api/contracts/{id}/cancel', { params: { path: { id: contract.id } } });
    expect(cancelled.response.status).toBe(200);
    await expectHidden(worker, client);
  });

  it('ends when it expires unapproved', async () => {
    const { worker, client } = await pair();
    const { gig, contract } = await pendingContract(client, worker);
    await closeGig(client, gig.id);
    await expectReadable(worker, client);
    // The expiry job's work, run as of a time past every deadline (the job passes the clock in).
    await expireOverdue({ db: server.db }, new Date(Date.parse(contract.approval_deadline!) + 1000));
    expect((await client.api.GET('/api/contracts/{id}', { params: { path: { id: contract.id } } })).data!.status).toBe('expired');
    await expectHidden(worker, client);
  });
});
