// What the money notifications say (issue 36, item 10), to each party in their own words and with
// the amounts the API states: a milestone funded, released, paid, and a payout that failed, with
// and without a dispute's refund (a 50/50 split of $500), and the dispute's resolution. Through the
// inbox (GET /api/notifications/inbox/messages) and email (a real SMTP server on loopback,
// tests/fakes/smtp.ts), on the sandbox provider; a payout day is one second.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eq } from 'drizzle-orm';
import { startTestServer, type TestServer, type TestUser as User } from '../helpers/server.ts';
import { fundedSandboxContract } from '../helpers/lifecycle.ts';
import { startFakeSmtp, type FakeSmtp } from '../fakes/smtp.ts';
import { paymentAccounts } from '../../db/schema.ts';
import { PAYOUT_QUEUE } from '../../src/job-system/queues.ts';
import { formatUtc } from '../../src/notifications/templates.ts';

type Message = { type: string; title: string; body: string; link: string };

let server: TestServer;
let smtp: FakeSmtp;
beforeAll(async () => {
  smtp = await startFakeSmtp();
  server = await startTestServer({ SMTP_URL: smtp.url, MAIL_FROM: 'gigmarket <noreply@example.com>', PAYOUT_DAY_SECONDS: '1' });
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});

let pairs = 0;
/** A client and a worker with email addresses, and their contract's one milestone of $500, funded. */
async function fundedPair() {
  const n = ++pairs;
  const [client, worker] = await server.users('Carol Client', 'Walt Worker');
  for (const [user, email] of [
    [client, `client${n}@example.com`],
    [worker, `worker${n}@example.com`],
  ] as const) {
    expect((await user.api.PATCH('/api/profile/me', { body: { email } })).response.status).toBe(200);
  }
  const { contract } = await fundedSandboxContract(client, worker, [{ title: 'Design', amount_cents: 50_000 }]);
  const milestoneId = contract.milestones[0]!.id;
  const parties = { client: { user: client, email: `client${n}@example.com` }, worker: { user: worker, email: `worker${n}@example.com` } };
  return { ...parties, contract, milestoneId };
}
type Party = Awaited<ReturnType<typeof fundedPair>>['client'];

/** The party's inbox message of this type, once the relay has written it (and only one). */
async function message(party: Party, type: string): Promise<Message> {
  return vi.waitFor(
    async () => {
      const res = await party.user.api.GET('/api/notifications/inbox/messages', { params: { query: { limit: 100 } } });
      const found = res.data!.data.filter((m) => m.type === type);
      expect(found).toHaveLength(1);
      return found[0]!;
    },
    { timeout: 60_000, interval: 100 },
  );
}

/** The email of the same message: its subject is the title, its text the body, then the link. */
async function expectMailed(party: Party, m: Message, label: string) {
  const mail = await vi.waitFor(
    () => {
      const found = smtp.messages.filter((x) => x.envelope.to.includes(party.email) && x.subject === m.title);
      expect(found).toHaveLength(1);
      return found[0]!;
    },
    { timeout: 60_000, interval: 100 },
  );
  expect(mail.text).toBe(`${m.body}\n\n${label}: ${m.link}\n`);
}

/** Both parties' message of this type, each checked against its email. */
async function told(p: { client: Party; worker: Party }, type: string, label = 'See the contract') {
  const client = await message(p.client, type);
  const worker = await message(p.worker, type);
  await expectMailed(p.client, client, label);
  await expectMailed(p.worker, worker, label);
  return { client, worker };
}

const QUOTED = 'Contract:\n  "Build a Rust CLI"\nMilestone:\n  "Design"';

const release = (p: Awaited<ReturnType<typeof fundedPair>>) =>
  p.client.user.api.POST('/api/contracts/{id}/milestones/{milestoneId}/release', {
    params: { path: { id: p.contract.id, milestoneId: p.milestoneId } },
  });

/** A 50/50 split of the milestone: the client disputes it, the worker responds, both accept. */
async function split(p: Awaited<ReturnType<typeof fundedPair>>) {
  const opened = await p.client.user.api.POST('/api/contracts/{id}/disputes', {
    params: { path: { id: p.contract.id } },
    body: { reason: 'work_not_as_agreed', description: 'Half of it is missing.', milestone_ids: [p.milestoneId] },
  });
  expect(opened.response.status).toBe(201);
  const id = opened.data!.id;
  const params = { path: { id } };
  expect((await p.worker.user.api.POST('/api/disputes/{id}/response', { params, body: { text: 'Half is there.' } })).response.status).toBe(
    200,
  );
  const body = { outcome: 'split', worker_share_percent: 50 } as const;
  expect((await p.client.user.api.POST('/api/disputes/{id}/resolution', { params, body })).data!.status).toBe('responded');
  expect((await p.worker.user.api.POST('/api/disputes/{id}/resolution', { params, body })).data!.status).toBe('resolved');
  return id;
}

/** The worker's payout account refuses transfers (standing in for a closed account at the provider). */
async function breakPayoutAccount(worker: User) {
  await server.db
    .update(paymentAccounts)
    .set({ accountId: `acct_closed_${worker.userId}` })
    .where(eq(paymentAccounts.userId, worker.userId));
}

/** Stands in for ten failed retries: the milestone's payout job is replaced by one with no retry left. */
async function lastPayoutAttempt(milestoneId: string) {
  const boss = server.runtime.jobs.boss;
  await vi.waitFor(async () => expect(await boss.findJobs(PAYOUT_QUEUE, { key: milestoneId })).not.toEqual([]), { timeout: 60_000 });
  for (const job of await boss.findJobs(PAYOUT_QUEUE, { key: milestoneId })) await boss.cancel(PAYOUT_QUEUE, job.id);
  await boss.send(PAYOUT_QUEUE, { milestone_id: milestoneId }, { retryLimit: 0 });
}

describe('money notifications, each party in their own words', () => {
  it('funded, released by the client, paid: the whole amount, the client never told it was paid', async () => {
    const p = await fundedPair();
    const funded = await told(p, 'milestone.funded');
    expect(funded.client).toMatchObject({
      title: 'Milestone funded: "Design"',
      body: `You funded a milestone: $500.00 is held until you release it.\n\n${QUOTED}`,
      link: `${server.url}/#/contracts/${p.contract.id}`,
    });
    expect(funded.worker).toMatchObject({
      title: 'Milestone funded: "Design"',
      body: `The client funded a milestone: $500.00 is held for you until the client releases it.\n\n${QUOTED}`,
    });

    const released = await release(p);
    const due = formatUtc(new Date(released.data!.milestone.payout_due_at!));
    const told2 = await told(p, 'milestone.released');
    expect(told2.client).toMatchObject({
      title: 'Milestone released: "Design"',
      body: `You released a milestone: $500.00 will be paid out to the worker on ${due}.\n\n${QUOTED}`,
    });
    expect(told2.worker.body).toBe(`The client released a milestone: $500.00 will be paid out to you on ${due}.\n\n${QUOTED}`);

    const paid = await told(p, 'milestone.paid');
    expect(paid.client).toMatchObject({
      title: 'Milestone paid out: "Design"',
      body: `$500.00 for a milestone was paid out to the worker.\n\n${QUOTED}`,
    });
    expect(paid.worker).toMatchObject({
      title: 'Paid: $500.00 for "Design"',
      body: `$500.00 for a milestone was paid out to your account.\n\n${QUOTED}`,
    });
  });

  it('split 50/50 by a dispute: $250 paid, $250 refunded, released by the resolution and paid at once', async () => {
    const p = await fundedPair();
    const disputeId = await split(p);
    const resolved = await told(p, 'dispute.resolved', 'See the dispute');
    for (const m of [resolved.client, resolved.worker]) {
      expect(m.body).toContain('Of the disputed $500.00, $250.00 goes to the worker and $250.00 back to the client');
      expect(m.link).toBe(`${server.url}/#/disputes/${disputeId}`);
    }

    const released = await told(p, 'milestone.released');
    expect(released.client.body).toBe(
      `The dispute's resolution released $250.00 of a milestone to the worker, paid out now; $250.00 is refunded to you.\n\n${QUOTED}`,
    );
    expect(released.worker.body).toBe(
      `The dispute's resolution released $250.00 of a milestone to you, paid out now; the other $250.00 goes back to the client.\n\n${QUOTED}`,
    );

    const paid = await told(p, 'milestone.paid');
    expect(paid.client).toMatchObject({
      title: 'Milestone paid out: "Design"',
      body: `$250.00 for a milestone was paid out to the worker. Of its $500.00, the dispute's resolution refunded $250.00 to you.\n\n${QUOTED}`,
    });
    expect(paid.worker).toMatchObject({
      title: 'Paid: $250.00 for "Design"',
      body: `$250.00 for a milestone was paid out to your account. Of its $500.00, the dispute's resolution refunded $250.00 to the client.\n\n${QUOTED}`,
    });
  });

  it('a payout that failed on every retry: the amount owed, and what each party is to do', async () => {
    const p = await fundedPair();
    await breakPayoutAccount(p.worker.user);
    expect((await release(p)).response.status).toBe(200);
    await lastPayoutAttempt(p.milestoneId);
    const failed = await told(p, 'milestone.payout_failed');
    expect(failed.client).toMatchObject({
      title: 'Payout to the worker failed: "Design"',
      body: `The payout of $500.00 to the worker for a milestone failed after repeated attempts.\n\n${QUOTED}\n\nThe amount stays owed to the worker and is sent again once the cause is fixed; nothing more is charged to you.`,
    });
    expect(failed.worker).toMatchObject({
      title: 'Payout failed: $500.00 for "Design"',
      body: `The payout of $500.00 to your account for a milestone failed after repeated attempts.\n\n${QUOTED}\n\nThe amount is still owed to you: it is sent again once the cause is fixed. Check that your payout account can receive transfers.`,
    });
  });

  it("a failed payout of a split milestone states the worker's part and the refund", async () => {
    const p = await fundedPair();
    await breakPayoutAccount(p.worker.user);
    await split(p);
    await lastPayoutAttempt(p.milestoneId);
    const failed = await told(p, 'milestone.payout_failed');
    expect(failed.client.body).toMatch(
      /^The payout of \$250\.00 to the worker for a milestone failed after repeated attempts\. Of its \$500\.00, the dispute's resolution refunded \$250\.00 to you\.\n\n/,
    );
    expect(failed.worker.title).toBe('Payout failed: $250.00 for "Design"');
    expect(failed.worker.body).toMatch(
      /^The payout of \$250\.00 to your account for a milestone failed after repeated attempts\. Of its \$500\.00, the dispute's resolution refunded \$250\.00 to the client\.\n\n/,
    );
  });
});
