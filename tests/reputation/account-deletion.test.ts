// Deleting an account (POST /api/profile/me/delete): only from a browser session and with the
// confirmation; refused while a contract binds the user; otherwise what the user has open ends (each
// with the other party's event), what is personal is erased, and nothing of theirs works after.
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { testFileServer, type TestUser as User } from '../helpers/server.ts';
import { signInDev, type BrowserSession } from '../helpers/session.ts';
import { activeSandboxContract, completedSandboxContract, negotiation, pendingContract, shortlistedGig } from '../helpers/lifecycle.ts';
import { formWith, pdfFile } from '../helpers/files.ts';
import { applications, milestones, notificationMessages, storedFiles, users, webhookEndpoints } from '../../db/schema.ts';

const server = testFileServer({ WEBHOOKS_ALLOW_PRIVATE_URLS: 'true' });

const CONFIRM = { confirm: 'delete my account' } as const;

async function person(name: string): Promise<{ user: User; session: BrowserSession }> {
  const user = await server.user(name);
  return { user, session: await signInDev(server, { userId: user.userId }) };
}
const userRow = async (id: string) => (await server.db.select().from(users).where(eq(users.id, id)))[0]!;

describe('POST /api/profile/me/delete', () => {
  it('needs a browser session (a key is 403, nothing is 401) and the exact confirmation (400); nothing changes', async () => {
    const { user, session } = await person('Careful');
    const byKey = await user.api.POST('/api/profile/me/delete', { body: CONFIRM });
    expect(byKey.response.status).toBe(403);
    expect(byKey.error).toMatchObject({ error: { code: 'FORBIDDEN' } });
    const anonymous = await fetch(`${server.url}/api/profile/me/delete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(CONFIRM),
    });
    expect(anonymous.status).toBe(401);
    const wrong = await session.api.POST('/api/profile/me/delete', { body: { confirm: 'yes' as typeof CONFIRM.confirm } });
    expect(wrong.response.status).toBe(400);
    expect(wrong.error).toMatchObject({ error: { code: 'VALIDATION_FAILED', issues: [{ path: 'body.confirm' }] } });
    const row = await userRow(user.userId);
    expect(row).toMatchObject({ displayName: 'Careful', deletedAt: null });
    expect((await user.api.GET('/api/profile/me')).response.status).toBe(200);
  });

  it('is refused with 409 naming the contract while one is active; nothing changes', async () => {
    const client = await person('Busy client');
    const worker = await person('Busy worker');
    const { contract } = await activeSandboxContract(client.user, worker.user);
    const refused = await worker.session.api.POST('/api/profile/me/delete', { body: CONFIRM });
    expect(refused.response.status).toBe(409);
    expect(refused.error!.error.code).toBe('CONFLICT');
    expect(refused.error!.error.message).toContain(`${contract.id} (active)`);
    expect((await userRow(worker.user.userId)).deletedAt).toBeNull();
    expect((await worker.user.api.GET('/api/profile/me')).response.status).toBe(200);
  });

  it('is refused while a completed contract still owes a payout, and allowed once it is paid', async () => {
    const client = await person('Paying client');
    const worker = await person('Waiting worker');
    const { contract } = await completedSandboxContract(client.user, worker.user);
    await server.db.update(milestones).set({ status: 'released' }).where(eq(milestones.contractId, contract.id));
    const refused = await worker.session.api.POST('/api/profile/me/delete', { body: CONFIRM });
    expect(refused.response.status).toBe(409);
    expect(refused.error!.error.message).toContain(`${contract.id} (payout owed)`);
    await server.db.update(milestones).set({ status: 'paid', paidAt: new Date() }).where(eq(milestones.contractId, contract.id));
    const done = await worker.session.api.POST('/api/profile/me/delete', { body: CONFIRM });
    expect(done.response.status).toBe(200);
    // The completed contract stays for the client.
    const kept = await client.user.api.GET('/api/contracts/{id}', { params: { path: { id: contract.id } } });
    expect(kept.data).toMatchObject({ status: 'completed' });
  });

  it('ends what is open, erases what is personal, and nothing of the account works after', async () => {
    const leaving = await person('Leaving Lee');
    const other = await person('Other Olga');
    const third = await person('Third Tom');
    // Lee's own gig, with Tom's application on it.
    const lees = await leaving.user.api.POST('/api/gigs', { body: { title: 'Lee needs a logo', tags: ['design'], status: 'open' } });
    expect(
      (await third.user.api.POST('/api/gigs/{id}/applications', { params: { path: { id: lees.data!.id } }, body: {} })).response.status,
    ).toBe(201);
    // Lee applied to Olga's gig; an open negotiation with Olga; a contract awaiting approval with Tom.
    const olgas = await other.user.api.POST('/api/gigs', { body: { title: 'Olga needs a parser', tags: ['rust'], status: 'open' } });
    const applied = await leaving.user.api.POST('/api/gigs/{id}/applications', { params: { path: { id: olgas.data!.id } }, body: {} });
    expect(applied.response.status).toBe(201);
    const { negotiation: open } = await negotiation(other.user, leaving.user);
    const { contract: pending } = await pendingContract(third.user, leaving.user);
    // A webhook endpoint, a resume, a vouch given, an email.
    await leaving.user.api.POST('/api/webhooks', { body: { url: 'http://127.0.0.1:9/hook' } });
    const uploaded = await fetch(`${server.url}/api/profile/me/resume`, {
      method: 'POST',
      headers: { authorization: `Bearer ${leaving.user.apiKey}` },
      body: formWith('resume', pdfFile()),
    });
    expect(uploaded.status).toBe(200);
    await leaving.user.api.POST('/api/vouches', { body: { vouched_user_id: other.user.userId } });
    await leaving.user.api.PATCH('/api/profile/me', {
      body: { email: 'lee@example.com', bio: 'I make logos', contact_details: 'lee@chat' },
    });

    const deleted = await leaving.session.api.POST('/api/profile/me/delete', { body: CONFIRM });
    expect(deleted.response.status).toBe(200);
    expect(deleted.data).toEqual({
      gigs_closed: 1,
      // The shortlist invitations of the negotiation and the pending contract count too.
      applications_withdrawn: expect.any(Number),
      negotiations_cancelled: 1,
      contracts_cancelled: 1,
      api_keys_revoked: 1,
    });
    expect(deleted.data!.applications_withdrawn).toBeGreaterThanOrEqual(1);

    // Nothing of the account works: its key and its session are refused.
    expect((await leaving.user.api.GET('/api/profile/me')).response.status).toBe(401);
    expect((await leaving.session.api.GET('/api/profile/me')).response.status).toBe(401);
    // The dev sign-in cannot bring it back.
    const again = await fetch(`${server.url}/auth/dev`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: leaving.user.userId }),
      redirect: 'manual',
    });
    expect(again.status).toBe(404);

    // The profile is a placeholder; the vouch it gave stays under the new name.
    const row = await userRow(leaving.user.userId);
    expect(row).toMatchObject({
      displayName: 'Deleted user',
      bio: '',
      skills: [],
      email: null,
      contactDetails: null,
      resumeKey: null,
      githubId: null,
    });
    expect(row.deletedAt).toBeInstanceOf(Date);
    expect(await server.db.select().from(storedFiles).where(eq(storedFiles.ownerUserId, leaving.user.userId))).toHaveLength(0);
    expect(await server.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.userId, leaving.user.userId))).toHaveLength(0);
    expect(await server.db.select().from(notificationMessages).where(eq(notificationMessages.userId, leaving.user.userId))).toHaveLength(0);
    const olgasProfile = await other.user.api.GET('/api/profile/{userId}', { params: { path: { userId: other.user.userId } } });
    expect(olgasProfile.data!.vouched_by).toEqual([
      expect.objectContaining({ user_id: leaving.user.userId, display_name: 'Deleted user' }),
    ]);
    const leesProfile = await other.user.api.GET('/api/profile/{userId}', { params: { path: { userId: leaving.user.userId } } });
    expect(leesProfile.data).toMatchObject({ display_name: 'Deleted user', bio: '', skills: [] });

    // What was open ended, as the other parties see it.
    const gig = await third.user.api.GET('/api/gigs/{id}', { params: { path: { id: lees.data!.id } } });
    expect(gig.data!.status).toBe('closed');
    const mine = await server.db.select().from(applications).where(eq(applications.workerUserId, leaving.user.userId));
    expect(mine.every((a) => a.status === 'withdrawn' || a.status === 'rejected')).toBe(true);
    const n = await other.user.api.GET('/api/negotiations/{id}', { params: { path: { id: open.id } } });
    expect(n.data!.status).toBe('cancelled');
    const c = await third.user.api.GET('/api/contracts/{id}', { params: { path: { id: pending.id } } });
    expect(c.data!.status).toBe('cancelled');
    const told = await other.user.api.GET('/api/events', { params: { query: { type: ['negotiation.cancelled'], resource_id: open.id } } });
    expect(told.data!.data).toHaveLength(1);
    // A deleted user takes no new vouch.
    const vouch = await other.user.api.POST('/api/vouches', { body: { vouched_user_id: leaving.user.userId } });
    expect(vouch.response.status).toBe(404);
  });

  it('leaves the shortlist the deleted client made, closed with its gig', async () => {
    const client = await person('Closing Cleo');
    const worker = await person('Invited Ivan');
    const gig = await shortlistedGig(client.user, worker.user);
    expect((await client.session.api.POST('/api/profile/me/delete', { body: CONFIRM })).response.status).toBe(200);
    const seen = await worker.user.api.GET('/api/gigs/{id}', { params: { path: { id: gig.id } } });
    expect(seen.data!.status).toBe('closed');
  });
});
