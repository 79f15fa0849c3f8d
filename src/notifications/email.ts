// Sending one email over SMTP (nodemailer), with failures a job can act on: retry later, or give up.
// Self-contained: settings in, message id or EmailError out; no database, no queue.
import { createRequire } from 'node:module';
import type { NodemailerError } from 'nodemailer';
import type { Config } from '../config.ts';

export interface EmailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface EmailSender {
  /** Resolves with the message id once the server accepted the message; rejects with an EmailError. */
  send(message: EmailMessage): Promise<string>;
  close(): void;
}

/**
 * Why a send failed, and whether the same message may go through later. Retryable: the server was
 * unreachable, silent or closed the connection, or replied 4xx ("try again later"). Permanent: a
 * 5xx reply (550 unknown recipient, 535 credentials refused) or a message that cannot be sent as
 * built; sending it again would get the same answer.
 */
export class EmailError extends Error {
  override name = 'EmailError';
  readonly retryable: boolean;
  /** nodemailer's code: ECONNECTION, ETIMEDOUT, ESOCKET, EAUTH, EENVELOPE, EMESSAGE, ... */
  readonly code: string | undefined;
  /** The SMTP reply code, when the server answered. */
  readonly responseCode: number | undefined;

  constructor(
    message: string,
    options: { retryable: boolean; code?: string | undefined; responseCode?: number | undefined; cause?: unknown },
  ) {
    super(message, { cause: options.cause });
    this.retryable = options.retryable;
    this.code = options.code;
    this.responseCode = options.responseCode;
  }
}

// Failures of the message or of our settings, which no later attempt changes.
const PERMANENT_CODES = new Set([
  'EENVELOPE',
  'EMESSAGE',
  'ECONFIG',
  'ENOAUTH',
  'EREQUIRETLS',
  'EMAXRECIPIENTS',
  'EFILEACCESS',
  'EURLACCESS',
]);

export function classify(err: unknown): EmailError {
  if (err instanceof EmailError) return err;
  const e = (err ?? {}) as NodemailerError;
  const message = typeof e.message === 'string' && e.message ? e.message : String(err);
  const responseCode = typeof e.responseCode === 'number' ? e.responseCode : undefined;
  let retryable: boolean;
  if (responseCode !== undefined) {
    // RFC 5321: 4yz is transient, 5yz permanent; 503 (bad sequence) is a session gone wrong, not a refusal.
    retryable = responseCode < 500 || responseCode === 503;
  } else {
    // No reply: the connection failed, timed out or closed, unless the message itself is at fault.
    retryable = !PERMANENT_CODES.has(e.code ?? '');
  }
  const detail = responseCode !== undefined ? `${e.code ?? 'SMTP'} ${responseCode}` : (e.code ?? 'error');
  return new EmailError(`email not sent (${retryable ? 'retryable' : 'permanent'}, ${detail}): ${message}`, {
    retryable,
    code: e.code,
    responseCode,
    cause: err,
  });
}

/** The sender for SMTP_URL and MAIL_FROM, or undefined when email is off (no SMTP_URL). */
export function createEmailSender(config: Pick<Config, 'email'>): EmailSender | undefined {
  const settings = config.email;
  if (!settings) return undefined;
  // Loaded only when email is configured: a server without SMTP_URL never needs nodemailer.
  const nodemailer = createRequire(import.meta.url)('nodemailer') as typeof import('nodemailer');
  const transport = nodemailer.createTransport({
    host: settings.host,
    port: settings.port,
    secure: settings.secure,
    requireTLS: settings.requireTls,
    // A fresh object: the config hides `pass` from logs by making it non-enumerable.
    auth: settings.auth ? { user: settings.auth.user, pass: settings.auth.pass } : undefined,
    // A dead or silent server fails the send in bounded time, so a job fails and retries instead of hanging.
    connectionTimeout: settings.timeoutMs,
    greetingTimeout: settings.timeoutMs,
    socketTimeout: settings.timeoutMs,
    dnsTimeout: settings.timeoutMs,
    // Messages are built from our templates: nothing should make nodemailer read files or fetch URLs.
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
    debug: false,
  });
  return {
    async send({ to, subject, text, html }) {
      try {
        const info = await transport.sendMail({ from: settings.from, to, subject, text, html });
        return info.messageId;
      } catch (err) {
        throw classify(err);
      }
    },
    close: () => transport.close(),
  };
}
