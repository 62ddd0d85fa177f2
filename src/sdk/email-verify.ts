/**
 * E-mail verification before an org is established (decisions §8 "Establishing an org"): the
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

/** decisions §8: valid 10 minutes, 5 tries; a new code at most every 30 s, 5 a session, 20 an org an hour. */
export const EMAIL_CODE_POLICY: EmailCodePolicy = { ttlMs: 10 * 60_000, maxAttempts: 5, resendMs: 30_000, maxPerSession: 5, maxPerOrgHour: 20 };

/** Where a request came from, for the audit trail. */
interface Meta {
  requestId: string;
  sourceAddress: string | null;
}

/** What the e-mail step needs of the Connect flow (connect.ts). */
export interface EmailVerifyKit {
  pendingConnection(g: ConnectGrant): Promise<Connection>;
  /** Whether the client org is established (decisions §8). */
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

/** Builds the e-mail step over the Connect flow's `kit`. */
export function createEmailVerification(kit: EmailVerifyKit, deps: EmailVerifyDeps) {
  const policy = deps.policy ?? EMAIL_CODE_POLICY;
  const hash = (sessionId: string, code: string) => createHmac('sha256', deps.codeKey).update(`${sessionId}:${code}`).digest();

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
     * THROTTLED (too soon after the last code, or too many for the org this hour), UNAVAILABLE
     * (the SMTP server refused or could not be reached; the code is void).
     */
    async sendEmailCode(p: ConnectPrincipal, meta: Meta): Promise<EmailCodeSent> {
      const g = await needing(p);
      if (!deps.mailer) throw emailNeeded(false);
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const stored = await deps.codes.create({ sessionId: g.sessionId, clientOrgId: p.orgId, codeHash: hash(g.sessionId, code) }, policy);
      if ('exhausted' in stored) throw AppError.validation([{ field: 'email', message: 'no more codes can be sent for this link: ask for a new link' }]);
      if ('retryAfterSec' in stored) {
        throw new AppError('THROTTLED', { params: { seconds: stored.retryAfterSec }, headers: { 'retry-after': String(stored.retryAfterSec) } });
      }
      const { vendorName, orgName, email } = await kit.parties(p, g);
      const minutes = Math.round(policy.ttlMs / 60_000);
      try {
        await deps.mailer.send({
          to: email,
          subject: `Your code to connect ${orgName}'s HRMS: ${code}`,
          text: [
            `Your code is ${code}. It is good for ${minutes} minutes, on the page where you asked for it.`,
            '',
            `Someone opened a link from ${vendorName} to connect ${orgName}'s HRMS, and asked for this code to confirm that they read this mailbox.`,
            `If that was not you, ignore this e-mail: without the code, nothing is set up for ${orgName}.`,
            '',
            `Sent by ${deps.operatorName}, which runs this hrx service.`,
          ].join('\n'),
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
