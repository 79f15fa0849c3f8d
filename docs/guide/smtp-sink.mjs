// A mail server for local testing that accepts every message and prints who it is for and its
// subject (smtp-server and mailparser, dev dependencies): PORT=2525 node docs/guide/smtp-sink.mjs, then start
// gigmarket with SMTP_URL=smtp://127.0.0.1:2525 and MAIL_FROM set.
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  async onData(stream, session, done) {
    const { subject } = await simpleParser(stream);
    console.log(`mail to ${session.envelope.rcptTo.map((r) => r.address).join(', ')}: ${subject}`);
    done();
  },
}).listen(Number(process.env.PORT ?? 2525), '127.0.0.1', () => console.log('listening'));
