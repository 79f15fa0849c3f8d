// The email building block against a real SMTP server on loopback (tests/fakes/smtp.ts): what
// arrives, what is refused, how failures are classified, how long a dead server can hold a send;
// and the settings that turn it on.
import net from 'node:net';
import util from 'node:util';
import nodemailer from 'nodemailer';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EmailSettings, loadConfig } from '../../src/config.ts';
import { classify, createEmailSender, EmailError, type EmailSender } from '../../src/notifications/email.ts';
import { contractAwaitingApproval } from '../../src/notifications/templates.ts';
import { type FakeSmtp, startFakeSmtp } from '../fakes/smtp.ts';

const MAIL_FROM = 'gigmarket <noreply@example.com>';
const PASSWORD = 'pa55:w/rd@secret';

let smtp: FakeSmtp;
const senders: EmailSender[] = [];

beforeAll(async () => {
  smtp = await startFakeSmtp({ user: 'mailer', password: PASSWORD });
});
afterEach(() => {
  smtp.resume();
  smtp.failNext(0, { code: 550 });
  for (const sender of senders.splice(0)) sender.close();
});
afterAll(() => smtp.close());

function sender(env: Record<string, string> = {}): EmailSender {
  const created = createEmailSender(loadConfig({ SMTP_URL: smtp.url, MAIL_FROM, ...env }))!;
  senders.push(created);
  return created;
}

const message = (to = 'owner@example.com') => ({ to, subject: 'Hello', text: 'Plain text', html: '<p>HTML</p>' });

/** The EmailError a send rejects with, and how long it took. */
async function failure(send: Promise<string>): Promise<{ err: EmailError; ms: number }> {
  const started = performance.now();
  const err = await send.then(
    () => expect.fail('the send succeeded'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EmailError);
  return { err: err as EmailError, ms: performance.now() - started };
}

describe('sending', () => {
  it('delivers through the server with AUTH: envelope, headers, text verbatim and HTML escaped', async () => {
    const email = contractAwaitingApproval({
      terms: {
        title: 'Log parser',
        counterparty: 'Bob',
        counterpartyRole: 'worker',
        currency: 'USD',
        rateCents: 8000,
        payoutDelayDays: 5,
        milestones: [{ title: 'Parser <script>alert(1)</script>', amountCents: 120000 }],
      },
      approvalDeadline: new Date('2026-12-03T14:00:00Z'),
      link: 'http://localhost:3000/contracts/c1',
    });
    const before = smtp.messages.length;
    const id = await sender().send({ to: 'alice@example.com', ...email });
    expect(smtp.messages).toHaveLength(before + 1);
    const got = smtp.messages.at(-1)!;
    expect(got.messageId).toBe(id);
    expect(got.user).toBe('mailer');
    expect(smtp.authAttempts.at(-1)).toEqual({ method: 'PLAIN', user: 'mailer', accepted: true });
    expect(got.envelope).toEqual({ from: 'noreply@example.com', to: ['alice@example.com'] });
    expect(got.from).toBe('"gigmarket" <noreply@example.com>');
    expect(got.subject).toBe('Approve your contract: "Log parser"');
    expect(got.text).toContain('Milestone 1: $1,200.00\n    "Parser <script>alert(1)</script>"');
    expect(got.text).toContain('Approve by Thu, 3 Dec 2026, 14:00 UTC');
    expect(got.html).toContain('Milestone 1: $1,200.00<br>&quot;Parser &lt;script&gt;alert(1)&lt;/script&gt;&quot;');
    expect(got.html).not.toContain('<script>');
    expect(got.html).toContain('<a href="http://localhost:3000/contracts/c1">');
  });

  it('the fake accepts AUTH LOGIN with the same credentials', async () => {
    const transport = nodemailer.createTransport({
      host: smtp.host,
      port: smtp.port,
      auth: { user: smtp.user, pass: smtp.password },
      authMethod: 'LOGIN',
    });
    try {
      await transport.sendMail({ from: 'noreply@example.com', to: 'bob@example.com', subject: 'Login', text: 'x' });
    } finally {
      transport.close();
    }
    expect(smtp.authAttempts.at(-1)).toEqual({ method: 'LOGIN', user: 'mailer', accepted: true });
    expect(smtp.messages.at(-1)!.subject).toBe('Login');
  });

  it('a wrong password is refused (535, permanent), and the password shows nowhere in the error', async () => {
    const wrong = 'not-the-Passw0rd';
    const before = smtp.messages.length;
    const { err } = await failure(sender({ SMTP_URL: smtp.url.replace(encodeURIComponent(PASSWORD), wrong) }).send(message()));
    expect(err).toMatchObject({ retryable: false, code: 'EAUTH', responseCode: 535 });
    expect(smtp.authAttempts.at(-1)).toEqual({ method: 'PLAIN', user: 'mailer', accepted: false });
    expect(smtp.messages).toHaveLength(before);
    for (const shown of [err.message, err.stack, util.inspect(err, { depth: 5 }), JSON.stringify(err), JSON.stringify(err.cause)]) {
      expect(shown).not.toContain(wrong);
      expect(shown).not.toContain(Buffer.from(wrong).toString('base64'));
    }
  });

  it('with STARTTLS required and not offered, the password is never sent', async () => {
    const settings = loadConfig({ SMTP_URL: smtp.url, MAIL_FROM }).email!;
    const strict = createEmailSender({ email: { ...settings, requireTls: true } as EmailSettings })!;
    senders.push(strict);
    const attempts = smtp.authAttempts.length;
    const { err } = await failure(strict.send(message()));
    expect(err.code).toBe('ETLS');
    expect(smtp.authAttempts).toHaveLength(attempts);
  });
});

describe('failures a job can act on', () => {
  it.each([
    { code: 451, at: 'rcpt', retryable: true, nodemailerCode: 'EENVELOPE' },
    { code: 450, at: 'mail', retryable: true, nodemailerCode: 'EENVELOPE' },
    { code: 452, at: 'data', retryable: true, nodemailerCode: 'EMESSAGE' },
    { code: 550, at: 'rcpt', retryable: false, nodemailerCode: 'EENVELOPE' },
    { code: 554, at: 'data', retryable: false, nodemailerCode: 'EMESSAGE' },
  ] as const)('$code at $at: retryable $retryable', async ({ code, at, retryable, nodemailerCode }) => {
    smtp.failNext(1, { code, at, message: code === 550 ? 'No such user here' : undefined });
    const email = sender();
    const { err } = await failure(email.send(message()));
    expect(err).toMatchObject({ retryable, responseCode: code, code: nodemailerCode });
    expect(err.message).toMatch(new RegExp(`^email not sent \\(${retryable ? 'retryable' : 'permanent'}, ${nodemailerCode} ${code}\\)`));
    // Only the next message was refused.
    await expect(email.send(message())).resolves.toMatch(/^<.+@example\.com>$/);
  });

  it('failNext(n) refuses exactly n messages', async () => {
    smtp.failNext(2, { code: 421, at: 'data' });
    const email = sender();
    const before = smtp.messages.length;
    for (let i = 0; i < 2; i++) expect((await failure(email.send(message()))).err.retryable).toBe(true);
    await email.send(message());
    expect(smtp.messages).toHaveLength(before + 1);
  });

  it('failNext(n, { to }) refuses only messages to that address', async () => {
    smtp.failNext(1, { code: 550, at: 'rcpt', to: 'refused@example.com' });
    const email = sender();
    const before = smtp.messages.length;
    await email.send(message('other@example.com'));
    expect((await failure(email.send(message('refused@example.com')))).err.retryable).toBe(false);
    await email.send(message('refused@example.com'));
    expect(smtp.messages.slice(before).map((m) => m.envelope.to)).toEqual([['other@example.com'], ['refused@example.com']]);
  });

  it('connection refused is retryable, and fails at once', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const { err, ms } = await failure(sender({ SMTP_URL: `smtp://127.0.0.1:${port}` }).send(message()));
    expect(err.retryable).toBe(true);
    expect(err.responseCode).toBeUndefined();
    expect(err.message).toMatch(/ECONNREFUSED/);
    expect(ms).toBeLessThan(20_000); // not nodemailer's 2 min connection time-out, nor a retry's wait
  });

  it.each(['greeting', 'data'] as const)('a server that stalls (%s) fails the send after SMTP_TIMEOUT_MS, retryable', async (at) => {
    smtp.stall(at);
    const { err, ms } = await failure(sender({ SMTP_TIMEOUT_MS: '400' }).send(message()));
    expect(err).toMatchObject({ retryable: true, code: 'ETIMEDOUT' });
    expect(ms).toBeGreaterThanOrEqual(350);
    expect(ms).toBeLessThan(20_000); // SMTP_TIMEOUT_MS, not nodemailer's own defaults: 30 s for the greeting, 10 min of silence
  });

  it('classify: 503 and lost connections are retryable; an envelope without a reply is not', () => {
    expect(classify(Object.assign(new Error('bad sequence'), { code: 'EPROTOCOL', responseCode: 503 })).retryable).toBe(true);
    expect(classify(Object.assign(new Error('closed'), { code: 'ECONNECTION' })).retryable).toBe(true);
    expect(classify(Object.assign(new Error('No recipients defined'), { code: 'EENVELOPE' })).retryable).toBe(false);
    expect(classify('odd').message).toContain('odd');
  });
});

describe('settings', () => {
  const env = (extra: Record<string, string>) => ({ MAIL_FROM, ...extra });

  it('without SMTP_URL email is off', () => {
    expect(loadConfig({}).email).toBeUndefined();
    expect(createEmailSender(loadConfig({ MAIL_FROM }))).toBeUndefined();
  });

  it('reads host, port, TLS, credentials, sender and timeout', () => {
    expect(loadConfig(env({ SMTP_URL: 'smtp://me:p%40ss%2Fw@mail.example.com:2525', SMTP_TIMEOUT_MS: '3000' })).email).toEqual({
      host: 'mail.example.com',
      port: 2525,
      secure: false,
      requireTls: true, // a password to a remote host: STARTTLS or nothing
      auth: { user: 'me' },
      from: { name: 'gigmarket', address: 'noreply@example.com' },
      timeoutMs: 3000,
    });
    expect(loadConfig(env({ SMTP_URL: 'smtp://me:p%40ss%2Fw@mail.example.com' })).email!.auth!.pass).toBe('p@ss/w');
    expect(loadConfig(env({ SMTP_URL: 'smtps://me:pw@mail.example.com' })).email).toMatchObject({
      port: 465,
      secure: true,
      requireTls: false,
    });
    expect(loadConfig(env({ SMTP_URL: 'smtp://relay.internal' })).email).toMatchObject({ port: 587, requireTls: false, auth: undefined });
    expect(loadConfig(env({ SMTP_URL: 'smtp://me:pw@127.0.0.1:25' })).email!.requireTls).toBe(false);
    expect(loadConfig({ SMTP_URL: 'smtp://relay', MAIL_FROM: 'noreply@example.com' }).email!.from).toEqual({
      name: '',
      address: 'noreply@example.com',
    });
    expect(loadConfig({ SMTP_URL: 'smtp://relay', MAIL_FROM: '"Gig Market" <a@b.io>' }).email!.from).toEqual({
      name: 'Gig Market',
      address: 'a@b.io',
    });
    expect(loadConfig(env({ SMTP_URL: 'smtp://relay' })).email!.timeoutMs).toBe(10_000);
  });

  it('a logged or serialized config shows no password', () => {
    const config = loadConfig(env({ SMTP_URL: 'smtp://me:Sup3rSecret@mail.example.com' }));
    expect(JSON.stringify(config)).not.toContain('Sup3rSecret');
    expect(util.inspect(config, { depth: 10 })).not.toContain('Sup3rSecret');
  });

  it('SMTP_URL without MAIL_FROM, or with a MAIL_FROM that is no address, stops the start', () => {
    expect(() => loadConfig({ SMTP_URL: 'smtp://me:pw@mail.example.com' })).toThrow(/^MAIL_FROM is required when SMTP_URL is set/);
    for (const bad of ['gigmarket', 'a@', '<noreply@example.com', 'two@a.io, b@c.io', 'x\r\nBcc: eve@evil.example <a@b.io>']) {
      expect(() => loadConfig({ SMTP_URL: 'smtp://relay', MAIL_FROM: bad }), bad).toThrow(/^MAIL_FROM must be an address such as/);
    }
  });

  it('a malformed SMTP_URL stops the start with a message that never shows the password', () => {
    const secret = 'Hunter2secret';
    const cases: [string, RegExp][] = [
      [`smtp://me:${secret}@host:port`, /^SMTP_URL must be a URL such as smtp:\/\/.*not shown/],
      [`me:${secret}@mail.example.com`, /^SMTP_URL must start with smtp:\/\/ or smtps:\/\/, got a URL starting with "me:"$/],
      [`https://me:${secret}@mail.example.com`, /^SMTP_URL must start with smtp:\/\/ or smtps:\/\/, got a URL starting with "https:"$/],
      [`smtp:me:${secret}@mail.example.com`, /^SMTP_URL must be smtp:\/\/\[user:password@\]host\[:port\].*without a host$/],
      [
        `smtp://me:${secret}@mail.example.com/path`,
        /^SMTP_URL takes no path or query .*got one after "smtp:\/\/me:\*\*\*@mail\.example\.com"$/,
      ],
      [`smtp://me:${secret}@mail.example.com?tls=off`, /^SMTP_URL takes no path or query/],
      [`smtp://me:${secret}%zz@mail.example.com`, /^SMTP_URL's user or password is not valid percent-encoding/],
      ['smtp://me@mail.example.com', /^SMTP_URL must have both a user and a password, or neither/],
      [`smtp://:${secret}@mail.example.com`, /^SMTP_URL must have both a user and a password, or neither/],
    ];
    for (const [url, expected] of cases) {
      let message = '';
      try {
        loadConfig(env({ SMTP_URL: url }));
      } catch (err) {
        message = (err as Error).message;
        expect((err as Error).cause, url).toBeUndefined();
      }
      expect(message, url).toMatch(expected);
      expect(message, url).not.toContain(secret);
    }
  });

  it('SMTP_TIMEOUT_MS must be a positive integer', () => {
    expect(() => loadConfig(env({ SMTP_URL: 'smtp://relay', SMTP_TIMEOUT_MS: '0' }))).toThrow(/SMTP_TIMEOUT_MS must be at least 1/);
    expect(() => loadConfig(env({ SMTP_URL: 'smtp://relay', SMTP_TIMEOUT_MS: '5s' }))).toThrow(/SMTP_TIMEOUT_MS must be an integer/);
  });
});
