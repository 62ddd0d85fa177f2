/**
 * Vendors' event endpoints (docs/events.md, docs/cli.md "hrx endpoint"): registration with a
 * signing secret shown once and stored encrypted (bound to its row), listing, removal (which
 * stops the endpoint's pending deliveries).
 */
import { isIP } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { FieldCipher } from '../crypto/field-cipher';
import type { Transactor } from '../db/tx';
import { AppError } from '../errors';
import type { OrgStore } from '../orgs/store';
import type { EventsQueue } from './queue';
import { endpointSecretAad, newSigningSecret } from './signing';
import type { EventStore } from './store';
import { EVENT_TYPES, isEventType, type EventType } from './types';
import { isUuid } from '../domain/ids';
import { isHostNotAllowed, type HostPolicy } from '../outbound/host-policy';

/** Longest endpoint URL accepted. */
export const MAX_URL_LENGTH = 2048;

/** True for `localhost`, 127.0.0.0/8 and ::1 (`URL.hostname` keeps IPv6 in brackets). */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1';
  return false;
}

/**
 * Checks an endpoint URL and returns it normalized (WHATWG URL `href`). https only; http only for
 * a loopback host and only when `allowHttpLoopback` (HRX_EVENTS_ALLOW_HTTP_LOOPBACK=1, for local
 * receivers and tests). No user info (it would be a credential in listings and logs), no
 * fragment. Throws a VALIDATION `AppError` naming `url`.
 */
export function validateEndpointUrl(raw: string, opts: { allowHttpLoopback: boolean }): string {
  const bad = (message: string) => AppError.validation([{ field: 'url', message }]);
  if (raw.length === 0 || raw.length > MAX_URL_LENGTH) throw bad(`must be 1 to ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('is not a valid URL');
  }
  if (url.protocol === 'http:') {
    // Name the way out: plain http is allowed only to a loopback host, and only when the operator says so.
    if (!opts.allowHttpLoopback || !isLoopbackHost(url.hostname))
      throw bad('must use https (plain http only to a loopback host with HRX_EVENTS_ALLOW_HTTP_LOOPBACK=1)');
  } else if (url.protocol !== 'https:') {
    throw bad('must use https');
  }
  if (url.username || url.password) throw bad('must not carry user info');
  if (url.hash) throw bad('must not carry a fragment');
  return url.href;
}

/**
 * Refuses, at registration, an endpoint whose host is or resolves to a private, loopback,
 * link-local or reserved address under `policy` (the SSRF guard every delivery goes through,
 * docs/events.md "Delivery"): an IP literal is checked as written, a name by resolving it now
 * (a name that does not resolve yet is accepted; each delivery checks the address it connects
 * to again). Without a policy (the operator allowed private hosts or loopback) nothing is
 * refused. Throws a VALIDATION `AppError` naming `url`.
 */
export async function refuseBlockedHost(url: string, policy: HostPolicy | undefined): Promise<void> {
  if (!policy) return;
  const refused = () => AppError.validation([{ field: 'url', message: 'must not point to a private, loopback, link-local or reserved address' }]);
  const parsed = new URL(url);
  try {
    policy.checkUrl(parsed);
  } catch {
    throw refused();
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return;
  const blocked = await new Promise<boolean>((resolve) => policy.lookup(host, { all: true }, (err) => resolve(err ? isHostNotAllowed(err) : false)));
  if (blocked) throw refused();
}

/** Parses a `--events a,b` list: known types, deduplicated, in catalogue order; absent or empty = every type. */
export function parseEventTypes(list: string | undefined): EventType[] {
  if (list === undefined || list.trim() === '') return [...EVENT_TYPES];
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.find((n) => !isEventType(n));
  if (unknown !== undefined) throw AppError.validation([{ field: 'events', message: `unknown event type ${unknown}; known: ${EVENT_TYPES.join(', ')}` }]);
  return EVENT_TYPES.filter((t) => names.includes(t));
}

/** An endpoint as listed: never its secret. */
export interface EndpointView {
  id: string;
  url: string;
  events: EventType[];
  created_at: string;
}

export interface EndpointServiceDeps {
  store: EventStore;
  /** Opens the transaction of a removal (retried after a deadlock). */
  transactor: Transactor;
  orgs: Pick<OrgStore, 'findByUuid'>;
  cipher: FieldCipher;
  queue: Pick<EventsQueue, 'remove'>;
  allowHttpLoopback: boolean;
  /** The SSRF guard of deliveries, also asked at registration; absent when the operator lifted it. */
  hostPolicy?: HostPolicy | undefined;
  /** Told how many pending deliveries a removal cancelled (the workers' counters of `/metrics`); must not throw. */
  onCancelled?: (n: number) => void;
}

export type EndpointService = ReturnType<typeof createEndpointService>;

/** Builds the endpoint service. */
export function createEndpointService(deps: EndpointServiceDeps) {
  async function vendorOrg(orgUuid: string) {
    const org = isUuid(orgUuid) ? await deps.orgs.findByUuid(orgUuid.toLowerCase()) : null;
    if (!org?.isVendor) throw AppError.validation([{ field: 'org', message: 'no vendor org with this uuid' }]);
    return org;
  }
  return {
    /**
     * Registers an endpoint of vendor org `orgUuid` for `events` (default: every type). Returns it
     * with its signing secret (`whsec_...`), which is shown this once: only its encryption is
     * kept. Throws VALIDATION for a non-vendor org, a refused URL (scheme, or a host the SSRF
     * guard refuses: `refuseBlockedHost`) or an unknown event type.
     */
    async add(input: { orgUuid: string; url: string; events?: EventType[] }): Promise<EndpointView & { secret: string }> {
      const org = await vendorOrg(input.orgUuid);
      const url = validateEndpointUrl(input.url, { allowHttpLoopback: deps.allowHttpLoopback });
      await refuseBlockedHost(url, deps.hostPolicy);
      const events = input.events?.length ? input.events : [...EVENT_TYPES];
      const id = randomUUID();
      const secret = newSigningSecret();
      const row = await deps.store.insertEndpoint({
        id,
        orgId: org.id,
        url,
        eventTypes: events,
        secretEnc: deps.cipher.encrypt(secret, endpointSecretAad(id)),
      });
      return { id: row.id, url: row.url, events: row.eventTypes, created_at: row.createdAt.toISOString(), secret };
    },

    /** The vendor org's active endpoints, oldest first. Throws VALIDATION for a non-vendor org. */
    async list(orgUuid: string): Promise<EndpointView[]> {
      const org = await vendorOrg(orgUuid);
      const rows = await deps.store.listEndpoints(org.id);
      return rows.map((r) => ({ id: r.id, url: r.url, events: r.eventTypes, created_at: r.createdAt.toISOString() }));
    },

    /**
     * Removes endpoint `id`: no new deliveries, its pending ones cancelled and their queued jobs
     * dropped (an attempt already in flight may still arrive). Throws NOT_FOUND for an unknown or
     * already removed endpoint.
     */
    async remove(id: string): Promise<{ id: string; removed: true; cancelled_deliveries: number }> {
      const cancelled = isUuid(id) ? await deps.transactor.transaction((tx) => deps.store.removeEndpoint(id, tx)) : null;
      if (cancelled === null) throw new AppError('NOT_FOUND');
      deps.onCancelled?.(cancelled.length);
      await deps.queue.remove(cancelled);
      return { id, removed: true, cancelled_deliveries: cancelled.length };
    },
  };
}
