// What the platform charges, over HTTP: sharing contact details in a negotiation costs 2 credits
// (intro_deduction), once per negotiation and party; a client shortlisting an application (or
// inviting a worker, which shortlists at once) costs 1 credit (match_deduction), once per
// application. Too small a balance is 402 INSUFFICIENT_CREDITS, and nothing is shared or
// shortlisted.
import { describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { expectError } from '../helpers/expect-error.ts';
import { appliedGig, negotiation as openNegotiation } from '../helpers/lifecycle.ts';
import { balanceOf, expectLedgerBalanced, ledgerCounts, ledgerOf } from '../helpers/credits.ts';
import { eventsForResource } from '../../db/repositories/events.ts';
import { applications, negotiations, users } from '../../db/schema.ts';
import { grantCredits } from '../../src/services/credits.ts';

const server = testFileServer();

/** Spends the user's credits down to `balance` (from the free tier's 20 and whatever they spent). */
async function spendDownTo(user: User, balance: number) {
  const now = (await user.api.GET('/api/credits')).data!.credits_balance;
  if (now > balance)
    expect((await user.api.POST('/api/credits', { body: { amount: now - balance, reason: 'match_deduction' } })).response.status).toBe(200);
  expect(await balanceOf(server, user.userId)).toBe(balance);
}

const share = (user: User, id: string) => user.api.POST('/api/negotiations/{id}/contact-share', { params: { path: { id } } });
const negotiationRow = async (id: string) => (await server.db.select().from(negotiations).where(eq(negotiations.id, id)))[0]!;
const eventTypes = async (type: string, id: string) => (await eventsForResource(server.db, type, id)).map((e) => e.type);

describe('sharing contact details (intro_deduction)', () => {
  it('costs the sharing party 2 credits, once per negotiation', async () => {
    const [client, worker] = await server.users('Client', 'Worker');
    await server.db.update(users).set({ contactDetails: 'worker@example.com' }).where(eq(users.id, worker.userId));
    const { negotiation } = await openNegotiation(client, worker);
    expect((await share(worker, negotiation.id)).response.status).toBe(200);
    expect(await balanceOf(server, worker.userId)).toBe(18);
    expect((await ledgerOf(server, worker.userId)).at(-1)).toMatchObject({
      reason: 'intro_deduction',
      referenceId: `negotiation:${negotiation.id}`,
      amount: -2,
    });
    // Sharing again costs nothing; the client pays for their own share; the list shows the charge.
    expect((await share(worker, negotiation.id)).response.status).toBe(200);
    expect(await balanceOf(server, worker.userId)).toBe(18);
    expect((await share(client, negotiation.id)).response.status).toBe(200);
    expect(await balanceOf(server, client.userId)).toBe(20 - 1 - 2); // the shortlist, then the share
    const listed = await worker.api.GET('/api/credits/transactions', { params: { query: { limit: 1 } } });
    expect(listed.data!.data[0]).toMatchObject({ amount: -2, reason: 'intro_deduction', reference_id: `negotiation:${negotiation.id}` });
    await expectLedgerBalanced(server);
  });

  it('402 when the balance is too small: nothing is shared, nothing charged', async () => {
    const [client, worker] = await server.users('Client', 'Worker');
    await server.db.update(users).set({ contactDetails: 'worker@example.com' }).where(eq(users.id, worker.userId));
    const { negotiation } = await openNegotiation(client, worker);
    await spendDownTo(worker, 1);
    const before = await ledgerCounts(server);
    expectError(await share(worker, negotiation.id), 402, 'INSUFFICIENT_CREDITS', /costs 2 credits and the balance is 1/);
    expect((await negotiationRow(negotiation.id)).workerContactSharedAt).toBeNull();
    expect(await eventTypes('negotiation', negotiation.id)).not.toContain('negotiation.contact_shared');
    const seen = await client.api.GET('/api/negotiations/{id}', { params: { path: { id: negotiation.id } } });
    expect(seen.data!.contact).toEqual({ client_shared: false, worker_shared: false, counterpart: null });
    expect(await ledgerCounts(server)).toEqual(before);
    expect(await balanceOf(server, worker.userId)).toBe(1);

    // With credits again (an operator's grant), the share goes through.
    await grantCredits(server, worker.userId, 5, 'support ticket 12');
    expect((await share(worker, negotiation.id)).response.status).toBe(200);
    expect(await balanceOf(server, worker.userId)).toBe(4);
    expect((await client.api.GET('/api/negotiations/{id}', { params: { path: { id: negotiation.id } } })).data!.contact.counterpart).toBe(
      'worker@example.com',
    );
  });
});

describe('shortlisting (match_deduction)', () => {
  async function gigWithApplication(client: User) {
    const worker = await server.user('Worker');
    const { gig, application } = await appliedGig(client, worker);
    return { gigId: gig.id, worker, applicationId: application.id };
  }

  it('costs the client 1 credit per application, by either way of shortlisting; never the worker', async () => {
    const client = await server.user('Client');
    const a = await gigWithApplication(client);
    const shortlisted = await client.api.POST('/api/applications/{id}/shortlist', { params: { path: { id: a.applicationId } } });
    expect(shortlisted.response.status).toBe(200);
    expect(await balanceOf(server, client.userId)).toBe(19);
    expect((await ledgerOf(server, client.userId)).at(-1)).toMatchObject({
      reason: 'match_deduction',
      referenceId: `application:${a.applicationId}`,
      amount: -1,
    });
    // Shortlisting it again is 409 and costs nothing.
    expectError(
      await client.api.POST('/api/applications/{id}/shortlist', { params: { path: { id: a.applicationId } } }),
      409,
      'INVALID_STATE',
    );
    expect(await balanceOf(server, client.userId)).toBe(19);

    // Through the gig: an applicant's submitted application (200), and an invitation (201).
    const b = await gigWithApplication(client);
    const direct = await client.api.POST('/api/gigs/{id}/shortlist', {
      params: { path: { id: b.gigId } },
      body: { worker_user_id: b.worker.userId },
    });
    expect(direct.response.status).toBe(200);
    const invitee = await server.user('Invitee');
    const invited = await client.api.POST('/api/gigs/{id}/shortlist', {
      params: { path: { id: b.gigId } },
      body: { worker_user_id: invitee.userId },
    });
    expect(invited.response.status).toBe(201);
    expect(await balanceOf(server, client.userId)).toBe(17);
    expect((await ledgerOf(server, client.userId)).slice(-2).map((e) => e.referenceId)).toEqual([
      `application:${b.applicationId}`,
      `application:${invited.data!.id}`,
    ]);
    // The workers' credits are untouched (their accounts are not even opened).
    expect(await ledgerOf(server, a.worker.userId)).toEqual([]);
    await expectLedgerBalanced(server);
  });

  it('402 when the client has no credit left: nothing is shortlisted, no invitation made', async () => {
    const client = await server.user('Client');
    const a = await gigWithApplication(client);
    await spendDownTo(client, 0);
    const before = await ledgerCounts(server);
    expectError(
      await client.api.POST('/api/applications/{id}/shortlist', { params: { path: { id: a.applicationId } } }),
      402,
      'INSUFFICIENT_CREDITS',
    );
    expectError(
      await client.api.POST('/api/gigs/{id}/shortlist', { params: { path: { id: a.gigId } }, body: { worker_user_id: a.worker.userId } }),
      402,
      'INSUFFICIENT_CREDITS',
    );
    const invitee = await server.user('Invitee');
    expectError(
      await client.api.POST('/api/gigs/{id}/shortlist', { params: { path: { id: a.gigId } }, body: { worker_user_id: invitee.userId } }),
      402,
      'INSUFFICIENT_CREDITS',
    );
    expect((await server.db.select().from(applications).where(eq(applications.id, a.applicationId)))[0]!.status).toBe('submitted');
    expect(await eventTypes('application', a.applicationId)).toEqual(['application.submitted']);
    expect(
      await server.db
        .select()
        .from(applications)
        .where(and(eq(applications.gigId, a.gigId), eq(applications.workerUserId, invitee.userId))),
    ).toEqual([]);
    expect(await ledgerCounts(server)).toEqual(before);
  });
});
