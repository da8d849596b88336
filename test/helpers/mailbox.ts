import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Mailbox {
  readonly url: string;
  readonly messages: string[];
  /** While true the server refuses every connection (421), as an SMTP server that is down answers. */
  down: boolean;
  close(): Promise<void>;
  /** The first message to `to` with `subject` not yet taken, once it arrived. */
  next(to: string, subject: string): Promise<string>;
}

/** A real SMTP server on loopback that keeps every message it receives. */
export async function startMailbox(): Promise<Mailbox> {
  const messages: string[] = [];
  const taken = new Set<number>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, done) {
      if (!box.down) return done();
      done(Object.assign(new Error('Service not available, closing transmission channel'), { responseCode: 421 }));
    },
    onData(stream, _session, done) {
      let text = '';
      stream.on('data', (c: Buffer) => (text += c.toString('utf8')));
      stream.on('end', () => {
        messages.push(text);
        done();
      });
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.server.address() as AddressInfo).port;
  const box: Mailbox = {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    down: false,
    close: () => new Promise((r) => server.close(() => r())),
    async next(to, subject) {
      for (let i = 0; i < 500; i++) {
        const index = messages.findIndex((m, j) => !taken.has(j) && m.includes(to) && m.includes(subject));
        if (index >= 0) {
          taken.add(index);
          return messages[index]!;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`no email to ${to}`);
    },
  };
  return box;
}

/** A received message's text with quoted-printable soft line breaks and =XX escapes undone. */
export function mailText(message: string): string {
  return message.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The token of the account link (email verification or password reset) in a received message. */
export function mailedToken(message: string): string {
  const m = /token=([A-Za-z0-9_-]+)/.exec(mailText(message));
  assert.ok(m, `a token in: ${message}`);
  return m[1]!;
}

/** The account link (email verification or password reset) in a received message, moved to `baseUrl`. */
export function mailedLink(message: string, baseUrl: string): string {
  const m = /https?:\/\/\S+\/account\/(verify|reset)\?token=[A-Za-z0-9_-]+/.exec(mailText(message));
  assert.ok(m, `a link in: ${message}`);
  const u = new URL(m[0]);
  return `${baseUrl}${u.pathname}${u.search}`;
}
