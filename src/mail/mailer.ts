/**
 * Outgoing e-mail (docs/connect.md "What an e-mail code can set up": the Connect flow's one-time code), over
 * SMTP with nodemailer (https://nodemailer.com/smtp/). One message per call, plain text only; the
 * transport's own logging stays off: a message carries a code and a person's address, neither of
 * which may reach a log (docs/privacy.md).
 */
import nodemailer from 'nodemailer';

/** One plain-text message. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends e-mail. */
export interface Mailer {
  /** Sends `m`; rejects when the SMTP server refuses it or cannot be reached within 10 s. */
  send(m: MailMessage): Promise<void>;
}

/**
 * A mailer over the SMTP server of `url` (`smtp://` or `smtps://`, config `HRX_SMTP_URL`) sending
 * from `from` (`HRX_SMTP_FROM`). A connection per message: codes are rare, and no idle socket is
 * left to close at shutdown.
 */
export function createSmtpMailer(opts: { url: string; from: string }): Mailer {
  const transport = nodemailer.createTransport(
    {
      url: opts.url,
      logger: false,
      debug: false,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 10_000,
    },
    { from: opts.from },
  );
  return {
    async send(m) {
      await transport.sendMail({ to: m.to, subject: m.subject, text: m.text });
    },
  };
}
