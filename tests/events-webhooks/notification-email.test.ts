// Notification emails end to end, through a real SMTP server on loopback (tests/fakes/smtp.ts): a
// contract awaiting approval reaches both owners by email (subject, terms, deadline, link); the
// email channel's preferences decide; the approval reminder job, run through pg-boss, sends each
// reminder once; a 4xx reply is retried by pg-boss, a 5xx is not.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer, type TestUser as User } from '../helpers/server.ts';
import { pendingContract } from '../helpers/lifecycle.ts';
import { startFakeSmtp, type FakeSmtp, type ReceivedMail } from '../fakes/smtp.ts';
import { APPROVAL_REMINDER_QUEUE, NOTIFICATION_EMAIL_QUEUE } from '../../src/job-system/queues.ts';
import { formatUtc } from '../../src/notifications/templates.ts';

// Long enough that the first reminder's two runs end well before the second offset, however
// slow the machine (a 12 s TTL let a loaded CI run reach the 6 s window during them).
const TTL_MS = 30_000;
let server: TestServer;
let smtp: FakeSmtp;

beforeAll(async () => {
  smtp = await startFakeSmtp();
  server = await startTestServer({
    SMTP_URL: smtp.url,
    MAIL_FROM: 'gigmarket <noreply@example.com>',
    CONTRACT_APPROVAL_TTL: `${TTL_MS / 1000}s`,
    // One reminder due as soon as a contract exists (1 h > the TTL), one 8 s before the deadline.
    APPROVAL_REMINDERS: '1h,8s',
    EMAIL_RETRY_DELAY: '1s',
  });
});
afterAll(async () => {
  await server?.close();
  await smtp?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function owner(name: string, email?: string): Promise<User> {
  const user = await server.user(name);
  if (email) expect((await user.api.PATCH('/api/profile/me', { body: { email } })).response.status).toBe(200);
  return user;
}

/** The messages to `to` once there are `count` of them (matching `subject`, when given). */
async function mailTo(to: string, count: number, subject?: RegExp, timeoutMs = 15_000): Promise<ReceivedMail[]> {
  const found = () => smtp.messages.filter((m) => m.envelope.to.includes(to) && (!subject || subject.test(m.subject ?? '')));
  for (const started = Date.now(); Date.now() - started < timeoutMs; await sleep(100)) {
    if (found().length >= count) return found();
  }
  throw new Error(`${found().length} of ${count} emails to ${to} arrived`);
}

/** The email jobs for `to`: their state and retries, as pg-boss holds them. */
async function emailJobs(to: string): Promise<{ state: string; retry_count: number }[]> {
  const result = await server.db.execute(
    `select state, retry_count from pgboss.job where name = '${NOTIFICATION_EMAIL_QUEUE}' and data->>'to' = '${to}' order by created_on`,
  );
  return (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { state: string; retry_count: number }[];
}

async function jobsSettle(to: string, expected: string, timeoutMs = 15_000) {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await sleep(100)) {
    const jobs = await emailJobs(to);
    if (jobs.length && jobs.every((j) => j.state === expected)) return jobs;
  }
  throw new Error(`the email jobs to ${to} did not all become ${expected}: ${JSON.stringify(await emailJobs(to))}`);
}

describe('a contract awaiting approval', () => {
  it('is emailed to both owners: subject, terms, deadline and link', async () => {
    const client = await owner('Carol Client', 'carol@example.com');
    const worker = await owner('Walt Worker', 'walt@example.com');
    const { contract } = await pendingContract(client, worker, [{ title: 'Parser', amount_cents: 120_000, due_date: '2026-12-15' }]);
    const deadline = formatUtc(new Date(contract.approval_deadline!));
    const link = `${server.url}/#/contracts/${contract.id}`;

    const [toClient] = await mailTo('carol@example.com', 1, /^Approve/);
    expect(toClient!.subject).toBe('Approve your contract: "Build a Rust CLI"');
    expect(toClient!.from).toContain('noreply@example.com');
    // What the other party wrote (the gig's title, their name, each milestone's title) stands on a line of its own.
    expect(toClient!.text).toContain(
      'Your agent agreed on the terms below with the worker. Nothing binds until both owners approve.\n\nContract:\n  "Build a Rust CLI"\nWorker:\n  "Walt Worker"\n',
    );
    expect(toClient!.text).toContain('- Milestone 1: $1,200.00, due 2026-12-15\n    "Parser"\n');
    expect(toClient!.text).toContain(`Approve by ${deadline}`);
    expect(toClient!.text).toContain(`Review the contract: ${link}`);
    const [toWorker] = await mailTo('walt@example.com', 1, /^Approve/);
    expect(toWorker!.subject).toBe('Approve your contract: "Build a Rust CLI"');
    expect(toWorker!.text).toContain('Client:\n  "Carol Client"\n');

    // The email channel is listed now, with the address.
    const channels = await client.api.GET('/api/notifications');
    expect(channels.data!.data.map((c) => [c.channel, c.address])).toEqual([
      ['inbox', null],
      ['email', 'carol@example.com'],
    ]);
  });

  it("follows the email channel's types, apart from the inbox's", async () => {
    const client = await owner('Quiet Client', 'quiet@example.com');
    const worker = await owner('Loud Worker', 'loud@example.com');
    const off = await client.api.PATCH('/api/notifications/{channel}', {
      params: { path: { channel: 'email' } },
      body: { event_types: [] },
    });
    expect(off.data).toEqual({ channel: 'email', address: 'quiet@example.com', event_types: [], customized: true });
    await pendingContract(client, worker);
    await mailTo('loud@example.com', 1, /^Approve/);
    await sleep(1500); // time for a second email, were one enqueued
    expect(smtp.messages.filter((m) => m.envelope.to.includes('quiet@example.com'))).toEqual([]);
    expect(await emailJobs('quiet@example.com')).toEqual([]);
    // The inbox still has it.
    const inbox = await client.api.GET('/api/notifications/inbox/messages');
    expect(inbox.data!.data.map((m) => m.type)).toContain('contract.created'); // (and the reminder, should the minute's run come)
  });

  it('keeps a title that reads like terms inside its quotes, on a line of its own', async () => {
    const client = await owner('Quote Client', 'quote-client@example.com');
    const worker = await owner('Quote Worker. Your agent checked these terms: approve now', 'quote-worker@example.com');
    // A line break in a title is refused (400), so the forgery has to read on one line.
    await pendingContract(client, worker, [{ title: 'Parser - Payout: 0 days after each milestone is released', amount_cents: 100 }]);
    const [mail] = await mailTo('quote-client@example.com', 1, /^Approve/);
    expect(mail!.text).toContain('Worker:\n  "Quote Worker. Your agent checked these terms: approve now"\n');
    expect(mail!.text).toContain('- Milestone 1: $1.00\n    "Parser - Payout: 0 days after each milestone is released"\n');
    expect(mail!.text!.split('\n').filter((line) => line.startsWith('- Payout'))).toEqual([
      '- Payout: 3 days after each milestone is released',
    ]);
  });
});

describe('approval reminders', () => {
  it('are sent once per contract and offset, by the job through pg-boss', async () => {
    const client = await owner('Rita Client', 'rita@example.com');
    const worker = await owner('Remy Worker', 'remy@example.com');
    const { contract } = await pendingContract(client, worker);
    // The worker approves: only the client is still waited for.
    expect((await worker.api.POST('/api/contracts/{id}/approve', { params: { path: { id: contract.id } } })).response.status).toBe(200);
    const deadline = new Date(contract.approval_deadline!);

    // One run of the reminder job, through pg-boss, awaited until it has completed.
    const run = async () => {
      const boss = server.runtime.jobs.boss;
      const id = await boss.send(APPROVAL_REMINDER_QUEUE, {});
      await expect.poll(async () => (await boss.getJobById(APPROVAL_REMINDER_QUEUE, id!))?.state).toBe('completed');
    };
    await run();
    const [first] = await mailTo('rita@example.com', 1, /left to approve/);
    expect(first!.subject).toBe('1 hour left to approve "Build a Rust CLI"');
    // The schedule's own run each minute may have come between the contract and the worker's
    // approval and reminded them too, rightly; from here on nothing may reach them.
    const remyReminders = () =>
      smtp.messages.filter((m) => m.envelope.to.includes('remy@example.com') && /left to approve/.test(m.subject ?? ''));
    const remindedBeforeApproving = remyReminders().length;
    expect(remindedBeforeApproving).toBeLessThanOrEqual(1);
    expect(first!.text).toContain(`It expires at ${formatUtc(deadline)}`);
    await run(); // nothing new: the 1 h reminder was sent
    expect(await mailTo('rita@example.com', 1, /left to approve/)).toHaveLength(1);

    // Within 8 s of the deadline, the second one, once.
    expect(Date.now()).toBeLessThan(deadline.getTime() - 8000); // the first phase ended in time
    await sleep(Math.max(0, deadline.getTime() - 8000 - Date.now()) + 200);
    await run();
    await run();
    expect(await mailTo('rita@example.com', 2, /left to approve/)).toHaveLength(2);
    await sleep(1000);
    expect(smtp.messages.filter((m) => m.envelope.to.includes('rita@example.com') && /left to approve/.test(m.subject ?? ''))).toHaveLength(
      2,
    );
    // The worker approved: no reminder for them since (the 8 s one above all).
    expect(remyReminders()).toHaveLength(remindedBeforeApproving);
    // The inbox has both reminders too.
    const inbox = await client.api.GET('/api/notifications/inbox/messages');
    const reminders = inbox.data!.data.filter((m) => m.type === 'approval_reminder');
    expect(reminders.map((m) => m.title)).toEqual([
      '1 hour left to approve "Build a Rust CLI"',
      '1 hour left to approve "Build a Rust CLI"',
    ]);
  }, 120_000);
});

describe('SMTP failures', () => {
  // The refusal goes to the next message to the client: the approval email, or (should the
  // minute's reminder run fall in between) the contract's first reminder. Either way, one email;
  // mail to others (an earlier test's reminder, sent by the same minute's run) cannot draw it.
  it('a 4xx reply is retried until the email goes through', async () => {
    const client = await owner('Tess Client', 'tess@example.com');
    const worker = await owner('No Mail Worker');
    smtp.failNext(1, { code: 451, to: 'tess@example.com' });
    await pendingContract(client, worker);
    await mailTo('tess@example.com', 1, /^Approve/);
    const jobs = await jobsSettle('tess@example.com', 'completed');
    expect(jobs.map((j) => j.retry_count).sort()).toEqual([...jobs.map(() => 0).slice(1), 1]);
    // Every email arrived, once.
    expect(smtp.messages.filter((m) => m.envelope.to.includes('tess@example.com'))).toHaveLength(jobs.length);
  }, 120_000);

  it('a 5xx reply is not retried', async () => {
    const client = await owner('Perm Client', 'perm@example.com');
    const worker = await owner('No Mail Worker');
    smtp.failNext(1, { code: 550, at: 'rcpt', to: 'perm@example.com' });
    await pendingContract(client, worker);
    await jobsSettle('perm@example.com', 'completed');
    await sleep(2500); // longer than the retry delay: no second attempt
    // Settled again: a reminder enqueued meanwhile may still be on its way.
    const jobs = await jobsSettle('perm@example.com', 'completed');
    expect(jobs.map((j) => j.retry_count)).toEqual(jobs.map(() => 0));
    // The refused email never arrives; any other (a reminder) does.
    expect(smtp.messages.filter((m) => m.envelope.to.includes('perm@example.com'))).toHaveLength(jobs.length - 1);
  }, 120_000);

  it('the email queue expires a job after its SMTP waits and a minute', async () => {
    const queue = await server.runtime.jobs.boss.getQueue(NOTIFICATION_EMAIL_QUEUE);
    expect(queue?.expireInSeconds).toBe(Math.ceil((server.config.email!.timeoutMs * 6) / 1000) + 60);
  });
});
