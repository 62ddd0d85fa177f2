/**
 * E-mail verification before an org is established (docs/connect.md "What an e-mail code can set up"): the
 * HRMS step may give a new org its first configuration only in a session whose holder entered
 * the 6-digit code sent to the token's e-mail. For a private e-mail domain this ties the org to
 * someone who reads that domain's mail, so a vendor holding a token that names
 * `anyone@acme.com` cannot set Acme's org up with an HRMS of its own.
 *
 * A code is good for 10 minutes, 5 tries, once, and only in the session it was sent for (its
 * keyed hash is bound to the session). Wrong codes count against the vendor/client pair like
 * failed proofs of control (five lock the pair's approval for 15 minutes) and every code sent or
 * tried is audited in `connect_proof_audit` (method `email`). The code and the address are never
 * logged.
 */
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { ConnectGrant, ConnectPrincipal } from '../auth/principal';
import type { Connection } from '../db/entities';
import { AppError } from '../errors';
import { describeError } from '../log-error';
import type { Logger } from '../logger';
import type { Mailer } from '../mail/mailer';
import type { ProofMethod, ProofOutcome } from './connect-store';
import type { EmailCodePolicy, EmailCodeStore } from './email-code-store';

/**
 * docs/connect.md "E-mail verification before an organisation is set up": valid 10 minutes, 5
 * tries; a new code at most every 30 s and 5 a session; in any hour at most 20 for one org, 5 to
 * one address and 50 asked for by one vendor (across its sessions, tokens and orgs).
 */
export const EMAIL_CODE_POLICY: EmailCodePolicy = {
  ttlMs: 10 * 60_000,
  maxAttempts: 5,
  resendMs: 30_000,
  maxPerSession: 5,
  maxPerOrgHour: 20,
  maxPerRecipientHour: 5,
  maxPerVendorHour: 50,
};

/** Where a request came from, for the audit trail. */
interface Meta {
  requestId: string;
  sourceAddress: string | null;
}

/** What the e-mail step needs of the Connect flow (connect.ts). */
export interface EmailVerifyKit {
  pendingConnection(g: ConnectGrant): Promise<Connection>;
  /** Whether the client org is established (docs/connect.md "Reference: the SDK token and the Connect endpoints"). */
  established(orgId: number): Promise<boolean>;
  /** Whether session `id` verified its e-mail. */
  verified(sessionId: string): Promise<boolean>;
  /** Whether failed proofs lock the grant's vendor/client pair now. */
  locked(p: ConnectPrincipal, g: ConnectGrant): Promise<boolean>;
  /** Runs a check under the pair's lock policy (connect.ts `prove`); throws PROOF_FAILED when false or locked. */
  prove(p: ConnectPrincipal, method: 'email', meta: Meta, check: () => Promise<boolean>): Promise<{ proven: true }>;
  audit(p: ConnectPrincipal, method: ProofMethod, outcome: ProofOutcome, meta: Meta): Promise<void>;
  /** The names the message shows and the token's e-mail. */
  parties(p: ConnectPrincipal, g: ConnectGrant): Promise<{ vendorName: string; orgName: string; email: string }>;
}

export interface EmailVerifyDeps {
  codes: EmailCodeStore;
  /** Null without `HRX_SMTP_URL`: then only the operator can approve a new org's connection. */
  mailer: Mailer | null;
  /** The key of the codes' keyed hash (derived from the master key). */
  codeKey: Buffer;
  operatorName: string;
  log: Logger;
  policy?: EmailCodePolicy;
}

/** The answer to a code sent: where to and until when it is good. */
export interface EmailCodeSent {
  sent_to: string;
  expires_at: string;
}

/** The refusal of the HRMS step for a new org whose approver has not verified the e-mail. */
export function emailNeeded(mailerConfigured: boolean): AppError {
  return AppError.validation([
    {
      field: 'email',
      message: mailerConfigured
        ? 'verify your e-mail address first: ask for a code and enter it'
        : 'this service cannot send e-mail codes, so a new organisation cannot be set up here: the operator must approve this connection (hrx connection approve)',
    },
  ]);
}

/**
 * The code's message. The subject is fixed text and the code: nothing a vendor chose (the org
 * name comes from the vendor's token request) is in it, and the first lines are hrx's own. The
 * org name appears once, further down, quoted as a JSON string (so it cannot break the line or
 * pose as hrx's text) and said to be the vendor's. The vendor's name and the operator's are set
 * by the operator. docs/connect.md "What the e-mail says".
 */
export function codeMail(m: { code: string; minutes: number; vendorName: string; orgName: string; operatorName: string }): { subject: string; text: string } {
  return {
    subject: `Your hrx verification code: ${m.code}`,
    text: [
      `Your verification code is ${m.code}. It is good for ${m.minutes} minutes, on the page where you asked for it.`,
      '',
      'Someone opened a link to connect an HRMS to this hrx service, and asked for this code to confirm that they read this mailbox.',
      'If that was not you, ignore this e-mail: without the code, nothing is set up. Never read this code out to anyone who asks for it.',
      '',
      `The link came from ${m.vendorName}. The organisation name given by ${m.vendorName} (not checked by ${m.operatorName}): ${JSON.stringify(m.orgName)}`,
      '',
      `Sent by ${m.operatorName}, which runs this hrx service.`,
    ].join('\n'),
  };
}

/** Builds the e-mail step over the Connect flow's `kit`. */
export function createEmailVerification(kit: EmailVerifyKit, deps: EmailVerifyDeps) {
  const policy = deps.policy ?? EMAIL_CODE_POLICY;
  const hash = (sessionId: string, code: string) => createHmac('sha256', deps.codeKey).update(`${sessionId}:${code}`).digest();
  // The per-address limit's key, apart from the codes' (a key derived from theirs, for another use).
  const recipientKey = createHmac('sha256', deps.codeKey).update('connect-email-recipient').digest();
  const recipientHash = (email: string) => createHmac('sha256', recipientKey).update(email.trim().toLowerCase()).digest();

  /** The grant of a pending connection whose org still needs the e-mail step; throws its 400s and 409s. */
  async function needing(p: ConnectPrincipal) {
    const g = p.connect;
    await kit.pendingConnection(g);
    if (await kit.established(p.orgId)) throw AppError.validation([{ field: 'email', message: 'not needed: this organisation is already set up' }]);
    return g;
  }

  return {
    /**
     * Sends a new code to the token's e-mail (an earlier code of the session stops counting).
     * Throws 409 (decided), VALIDATION (no mailer, org established, session out of codes),
     * THROTTLED (too soon after the last code, or too many this hour for the org, the address or
     * the vendor: {@link EMAIL_CODE_POLICY}), UNAVAILABLE
     * (the SMTP server refused or could not be reached; the code is void).
     */
    async sendEmailCode(p: ConnectPrincipal, meta: Meta): Promise<EmailCodeSent> {
      const g = await needing(p);
      if (!deps.mailer) throw emailNeeded(false);
      const { vendorName, orgName, email } = await kit.parties(p, g);
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const stored = await deps.codes.create(
        { sessionId: g.sessionId, clientOrgId: p.orgId, vendorOrgId: g.vendorOrgId, codeHash: hash(g.sessionId, code), recipientHash: recipientHash(email) },
        policy,
      );
      if ('exhausted' in stored) throw AppError.validation([{ field: 'email', message: 'no more codes can be sent for this link: ask for a new link' }]);
      if ('retryAfterSec' in stored) {
        throw new AppError('THROTTLED', { params: { seconds: stored.retryAfterSec }, headers: { 'retry-after': String(stored.retryAfterSec) } });
      }
      try {
        await deps.mailer.send({
          to: email,
          ...codeMail({ code, minutes: Math.round(policy.ttlMs / 60_000), vendorName, orgName, operatorName: deps.operatorName }),
        });
      } catch (err) {
        await deps.codes.use(stored.id);
        deps.log.warn({ clientOrgId: p.orgId, connectionId: g.connectionId, err: describeError(err) }, 'connect: e-mail code not sent');
        throw new AppError('UNAVAILABLE', { headers: { 'retry-after': '30' } });
      }
      await kit.audit(p, 'email', 'sent', meta);
      deps.log.info({ clientOrgId: p.orgId, connectionId: g.connectionId }, 'connect: e-mail code sent');
      return { sent_to: email, expires_at: stored.expiresAt.toISOString() };
    },

    /**
     * Checks `code` against the session's latest code: right, the session's e-mail is verified
     * (`{verified: true}`, also when it was already). Throws 409 (decided), VALIDATION (org
     * established; no code waiting: none sent, expired, used, or out of tries), PROOF_FAILED
     * (wrong code, or the pair locked: checked first).
     */
    async verifyEmail(p: ConnectPrincipal, code: string, meta: Meta): Promise<{ verified: true }> {
      const g = await needing(p);
      if (await kit.verified(g.sessionId)) return { verified: true };
      // Locked: refused unchecked, whatever the code (prove() would too, but a spent code must not answer otherwise).
      if (await kit.locked(p, g)) {
        await kit.audit(p, 'email', 'locked', meta);
        throw new AppError('PROOF_FAILED');
      }
      const current = await deps.codes.current(g.sessionId, policy);
      if (!current) throw AppError.validation([{ field: 'code', message: 'no code is waiting (none sent, expired or used up): ask for a new code' }]);
      await kit.prove(p, 'email', meta, async () => {
        const stored = await deps.codes.take(current.id, policy);
        if (!stored) return false;
        const ok = timingSafeEqual(stored, hash(g.sessionId, code));
        if (ok) await deps.codes.use(current.id);
        return ok;
      });
      return { verified: true };
    },
  };
}
