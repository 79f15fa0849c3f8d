// A real SMTP server on a loopback port (smtp-server), standing in for a mail provider:
//   AUTH PLAIN or LOGIN with one user and password (anything else is 535), no STARTTLS offered;
//   every accepted message recorded: envelope, auth user, and subject, text and html as parsed (mailparser);
//   failNext(n, ...): the next n messages (to one recipient, or to anyone) refused with the given reply,
//   at MAIL FROM, RCPT TO or after DATA;
//   stall(...): no greeting, or no reply after DATA, until resume() or close() (for client timeouts).
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

export interface ReceivedMail {
  envelope: { from: string; to: string[] };
  /** The user the client authenticated as. */
  user: string | undefined;
  messageId: string | undefined;
  /** The From header as parsed. */
  from: string | undefined;
  subject: string | undefined;
  text: string | undefined;
  /** undefined when the message has no HTML part. */
  html: string | undefined;
}

export interface Refusal {
  /** The SMTP reply code, e.g. 451 or 550. */
  code: number;
  message?: string;
  /** Where the refusal comes: MAIL FROM, RCPT TO, or the reply after the message (default). */
  at?: 'mail' | 'rcpt' | 'data';
  /**
   * Only messages to this address draw the refusal (at RCPT TO or after the message, where the
   * recipient is known), so that mail to others sent meanwhile (a scheduled reminder) cannot.
   */
  to?: string;
}

export interface FakeSmtp {
  host: string;
  port: number;
  user: string;
  password: string;
  /** SMTP_URL for this server, with its user and password. */
  url: string;
  messages: ReceivedMail[];
  /** Every AUTH attempt, for assertions (no passwords kept). */
  authAttempts: { method: string; user: string | undefined; accepted: boolean }[];
  failNext(count: number, refusal: Refusal): void;
  /** From now on: `greeting`, new connections get no greeting; `data`, messages get no reply once sent. */
  stall(at: 'greeting' | 'data'): void;
  resume(): void;
  close(): Promise<void>;
}

type Reply = (err?: Error | null) => void;

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

const DEFAULT_MESSAGES: Record<string, string> = { '4': 'Try again later', '5': 'Mailbox unavailable' };

export async function startFakeSmtp(options: { user?: string; password?: string } = {}): Promise<FakeSmtp> {
  const user = options.user ?? 'mailer';
  const password = options.password ?? 'correct horse battery staple';
  const messages: ReceivedMail[] = [];
  const authAttempts: FakeSmtp['authAttempts'] = [];
  let failures = 0;
  let refusal: Refusal = { code: 550 };
  let stallAt: 'greeting' | 'data' | undefined;
  const stalled = new Set<Reply>();
  // The refusal each message drew at its MAIL FROM, until its transaction ends.
  const refusing = new WeakMap<SMTPServerSession, Refusal>();

  const refuse = (session: SMTPServerSession, at: Refusal['at'], reply: Reply): boolean => {
    const r = refusing.get(session);
    if (!r || (r.at ?? 'data') !== at) return false;
    reply(smtpError(r.code, r.message ?? DEFAULT_MESSAGES[String(r.code)[0]!] ?? 'Refused'));
    return true;
  };
  const hold = (reply: Reply) => stalled.add(reply);

  const server = new SMTPServer({
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true, // plain TCP on loopback
    disabledCommands: ['STARTTLS'], // its built-in certificate is self-signed: clients would refuse it
    disableReverseLookup: true,
    logger: false,
    closeTimeout: 200, // then connections still open get 421 and are closed
    onConnect(_session, reply) {
      if (stallAt === 'greeting') hold(reply);
      else reply();
    },
    onAuth(auth, _session, reply) {
      const accepted = (auth.method === 'PLAIN' || auth.method === 'LOGIN') && auth.username === user && auth.password === password;
      authAttempts.push({ method: auth.method, user: auth.username, accepted });
      if (!accepted) return reply(smtpError(535, 'Authentication credentials invalid'));
      reply(null, { user: auth.username });
    },
    onMailFrom(_address, session, reply) {
      refusing.delete(session);
      if (failures > 0 && refusal.to === undefined) {
        failures--;
        refusing.set(session, refusal);
      }
      if (!refuse(session, 'mail', reply)) reply();
    },
    onRcptTo(address, session, reply) {
      if (failures > 0 && refusal.to !== undefined && address.address === refusal.to && !refusing.has(session)) {
        failures--;
        refusing.set(session, refusal);
      }
      if (!refuse(session, 'rcpt', reply)) reply();
    },
    onData(stream, session, reply) {
      const envelope = {
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((r) => r.address),
      };
      simpleParser(stream)
        .then((parsed) => {
          if (refuse(session, 'data', reply)) return;
          if (stallAt === 'data') return hold(reply);
          messages.push({
            envelope,
            user: typeof session.user === 'string' ? session.user : undefined,
            messageId: parsed.messageId,
            from: parsed.from?.text,
            subject: parsed.subject,
            text: parsed.text,
            html: parsed.html === false ? undefined : parsed.html,
          });
          reply();
        })
        .catch((err: Error) => reply(smtpError(451, `Could not parse the message: ${err.message}`)));
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  // Errors of single connections (a client that hung up) are no failure of the fake.
  server.on('error', () => {});
  const port = (server.server.address() as AddressInfo).port;
  const releaseStalled = () => {
    for (const reply of stalled) reply(smtpError(421, 'Service closing'));
    stalled.clear();
  };

  return {
    host: '127.0.0.1',
    port,
    user,
    password,
    url: `smtp://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    messages,
    authAttempts,
    failNext(count, next) {
      if (next.to !== undefined && next.at === 'mail') throw new Error('a refusal for one recipient comes at rcpt or data');
      failures = count;
      refusal = next;
    },
    stall(at) {
      stallAt = at;
    },
    resume() {
      stallAt = undefined;
      releaseStalled();
    },
    close() {
      stallAt = undefined;
      releaseStalled();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
