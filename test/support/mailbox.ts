/**
 * A real SMTP server in the test process (the `smtp-server` package) that keeps every message it
 * receives: hrx sends its Connect e-mail codes here (HRX_SMTP_URL), and tests read them back, as
 * the person who reads that mailbox would.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { waitFor } from './harness';

/** One message as received: envelope recipients, the raw RFC 5322 text and its decoded body. */
export interface ReceivedMail {
  to: string[];
  from: string;
  raw: string;
  /** The single-part body, its transfer encoding (quoted-printable, base64) undone. */
  text: string;
}

/** The body of a single-part message, decoded (RFC 2045 §6.7, §6.8). */
function bodyOf(raw: string): string {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split);
  const body = raw.slice(split + 4);
  const encoding = /^Content-Transfer-Encoding:\s*(\S+)/im.exec(head)?.[1]?.toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') {
    const bytes = body.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

/** A running in-process SMTP server. */
export interface Mailbox {
  /** `smtp://127.0.0.1:PORT`, for HRX_SMTP_URL. */
  url: string;
  messages: ReceivedMail[];
  /** Messages sent to `address` (case-insensitive), oldest first. */
  to(address: string): ReceivedMail[];
  /** The 6-digit code of message number `nth` (0-based, default the first) to `address`, waiting up to 10 s for it. */
  code(address: string, nth?: number): Promise<string>;
  /** Makes the server refuse (`true`) or accept the next messages. */
  refuse(on: boolean): void;
  close(): Promise<void>;
}

/** The code in a message's subject (`...: 123456`). */
export function codeOf(m: ReceivedMail): string | undefined {
  return /^Subject: .*?(\d{6})\s*$/m.exec(m.raw)?.[1];
}

/** Starts the SMTP server on 127.0.0.1 (a free port; no TLS, no authentication). */
export async function startMailbox(): Promise<Mailbox> {
  const messages: ReceivedMail[] = [];
  let refusing = false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (refusing) {
          callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 451 }));
          return;
        }
        messages.push({
          to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          raw: Buffer.concat(chunks).toString('utf8'),
          text: bodyOf(Buffer.concat(chunks).toString('utf8')),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const to = (address: string) => messages.filter((m) => m.to.includes(address.toLowerCase()));
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    to,
    async code(address, nth = 0) {
      const m = await waitFor(() => to(address)[nth], 10_000, 50);
      const code = codeOf(m);
      if (!code) throw new Error('the message carries no 6-digit code');
      return code;
    },
    refuse(on) {
      refusing = on;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
