// `npm run mail-catcher`: an SMTP server on 127.0.0.1 for development, which prints every message it receives
// (envelope, subject and the plain-text part) instead of delivering it. With it, NOTIFIER=smtp works on a laptop:
//   npm run mail-catcher            # listens on 127.0.0.1:2525 (or MAIL_CATCHER_PORT)
//   NOTIFIER=smtp SMTP_URL=smtp://127.0.0.1:2525 MAIL_FROM=sso@localhost npm start
// smtp-server and mailparser are development dependencies; a production server mails through a real one.
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

const port = Number(process.env.MAIL_CATCHER_PORT ?? 2525);
const server = new SMTPServer({
  logger: false,
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  allowInsecureAuth: true,
  onData(stream, session, callback) {
    simpleParser(stream).then(
      (mail) => {
        const to = session.envelope.rcptTo.map((r) => r.address).join(', ');
        process.stdout.write(`--- to ${to}: ${mail.subject ?? '(no subject)'}\n${mail.text ?? ''}\n`);
        callback();
      },
      (err: Error) => callback(err),
    );
  },
});
server.on('error', (err) => process.stderr.write(`mail-catcher: ${err.message}\n`));
server.listen(port, '127.0.0.1', () => process.stdout.write(`mail-catcher: SMTP on 127.0.0.1:${port}; Ctrl-C stops it\n`));
process.once('SIGINT', () => server.close(() => process.exit(0)));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
