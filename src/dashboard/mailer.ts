import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Transporter } from 'nodemailer';
import type { Logger } from '../shared/logger.ts';

export interface Mail {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  /** The link the message carries, logged when there is no SMTP server. */
  readonly link: string;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  /** The folder messages are written to when there is no SMTP server; null when they are sent. */
  readonly outbox: string | null;
  close(): void;
}

/**
 * Mail by SMTP when SMTP_URL is set; otherwise each message is written to DATA_DIR/outbox as a
 * file and its link logged, so a fresh `npm start` can sign up without a mail server.
 */
export function createMailer(opts: { smtpUrl: string | null; from: string; dataDir: string; logger: Logger }): Mailer {
  const smtpUrl = opts.smtpUrl;
  if (smtpUrl) {
    // nodemailer (some 10 MB of resident memory) is loaded with the first message, not at start.
    let transport: Promise<Transporter> | null = null;
    return {
      async send(mail) {
        transport ??= import('nodemailer').then((m) => m.default.createTransport(smtpUrl));
        await (await transport).sendMail({ from: opts.from, to: mail.to, subject: mail.subject, text: mail.text });
      },
      outbox: null,
      close: () => void transport?.then((t) => t.close(), () => {}),
    };
  }
  const outbox = join(opts.dataDir, 'outbox');
  return {
    async send(mail) {
      mkdirSync(outbox, { recursive: true, mode: 0o700 });
      const file = join(outbox, `${Date.now()}-${Math.random().toString(36).slice(2, 8)}.eml`);
      writeFileSync(file, `From: ${opts.from}\nTo: ${mail.to}\nSubject: ${mail.subject}\n\n${mail.text}\n`, { mode: 0o600 });
      opts.logger.info({ to: mail.to, subject: mail.subject, link: mail.link, file }, 'no SMTP_URL: email written to the outbox');
    },
    outbox,
    close: () => {},
  };
}
