/**
 * The Connect session exchange (docs/connect.md "The session"): an SDK token, once, for a
 * session whose secret is the page's HttpOnly cookie; and the cookie back to its principal.
 * Part of the Connect flow (./connect.ts), apart because it runs before any session exists.
 */
import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { AuthFailureGuard } from '../auth/failure-guard';
import type { Principal } from '../auth/principal';
import { AppError } from '../errors';
import type { Logger } from '../logger';
import type { ConnectStore } from './connect-store';
import type { SdkTokenView } from './store';

/** A session just opened: its secret (the cookie value, shown once) and when it ends. */
export interface OpenedSession {
  secret: string;
  connectionId: string;
  expiresAt: Date;
}

/** What the exchange needs of the flow's dependencies. */
export interface SessionExchangeDeps {
  sessions: ConnectStore;
  /** The active row of an SDK token hrx issued and still honours, else null (service.ts). */
  verifyToken: (token: string) => Promise<SdkTokenView | null>;
  log: Logger;
  /** The failed-authentication limit (docs/behaviour.md "Failed authentications") on the exchange; absent: none. */
  failures?: AuthFailureGuard | undefined;
}

/** The `jti` claim of a token that parses as a JWT (unverified: only a key of the failure limit), else ''. */
function presentedJti(token: string): string {
  try {
    const { jti } = decodeJwt(token);
    return typeof jti === 'string' ? jti.slice(0, 128) : '';
  } catch {
    return '';
  }
}

/** Builds `openSession` and `verifySession`. */
export function createSessionExchange(deps: SessionExchangeDeps) {
  const { sessions } = deps;
  return {
    /**
     * Exchanges an SDK token for a Connect session, once per token (docs/connect.md "The session"). Returns the
     * session's secret (for the cookie) and its expiry (the token's). Throws AUTH_INVALID for a
     * token hrx does not honour or one exchanged before (each a failed authentication of
     * `opts.source` and of the token's `jti`, docs/behaviour.md "Failed authentications"), THROTTLED past the limit (checked
     * before the token: a refused exchange never uses the token up).
     */
    async openSession(token: string, opts: { source?: string } = {}): Promise<OpenedSession> {
      const exchange = async (): Promise<OpenedSession | null> => {
        const active = await deps.verifyToken(token);
        if (!active) return null;
        const secret = randomBytes(32).toString('base64url');
        const id = await sessions.createSession({ secret, jti: active.jti, connectionId: active.connectionId, expiresAt: active.expiresAt });
        if (!id) return null;
        deps.log.info({ clientOrgId: active.clientOrgId, connectionId: active.connectionId, sessionId: id }, 'connect: session opened');
        return { secret, connectionId: active.connectionId, expiresAt: active.expiresAt };
      };
      const opened = deps.failures
        ? await deps.failures.run({ source: opts.source ?? 'unknown', kind: 'sdk', presented: presentedJti(token) }, exchange)
        : await exchange();
      if (!opened) throw new AppError('AUTH_INVALID');
      return opened;
    },

    /** The principal of an active session secret (the authenticator's check of the cookie), or null. */
    async verifySession(secret: string): Promise<Principal | null> {
      if (!/^[A-Za-z0-9_-]{43}$/.test(secret)) return null;
      const s = await sessions.findSession(secret);
      if (!s) return null;
      return {
        orgId: s.clientOrgId,
        orgUuid: s.clientOrgUuid,
        isVendor: false,
        isClient: true,
        credentialId: s.id,
        connect: { sessionId: s.id, jti: s.jti, connectionId: s.connectionId, vendorOrgId: s.vendorOrgId, userId: s.userId },
      };
    },
  };
}
