/**
 * The glue of a product simulator written once: its auth preamble (HTTP Basic, a bearer token,
 * the client credentials of a token request), each refusal counted in `authFailures`, and the
 * `DialectSim` built from its parts (`dialectSim`), so a simulator keeps only its routes, its
 * switches and its ground truth. A simulator served from one class takes `DialectSimBase`
 * (`base.ts`) instead; the preamble serves both.
 */
import type { PartialEmployeeRecord } from '../../../domain/record';
import { employeeCode } from '../data';
import type { DialectSim } from '../dialect';
import type { SimSetup } from './base';
import type { SimCore } from './core';
import { basicCredentials, sameSecret } from './http';
import type { RemoveMode, Staff, Tokens } from './staff';

/** Counts one refused credential and answers `false`. */
function refused(core: SimCore): false {
  core.counters.authFailures += 1;
  return false;
}

/**
 * Whether the `Authorization` header carries HTTP Basic credentials with `user` and, when given,
 * `password` (compared in constant time); a refusal is counted. The product answers it its own way.
 */
export function basicOk(core: SimCore, authorization: string | undefined, user: string, password?: string): boolean {
  const given = basicCredentials(authorization);
  const ok = given !== undefined && sameSecret(given.user, user) && (password === undefined || sameSecret(given.password, password));
  return ok || refused(core);
}

/** The token of an `Authorization: <scheme> <token>` header (`Bearer`, Zoho's `Zoho-oauthtoken`), or `undefined`. */
export function bearerToken(authorization: string | undefined, scheme = 'Bearer'): string | undefined {
  return new RegExp(`^${scheme}\\s+(\\S+)$`, 'i').exec(authorization ?? '')?.[1];
}

/** Whether `token` is one `tokens` issued that may serve this data call (the call counted); a refusal is counted. */
export function tokenOk(core: SimCore, tokens: Tokens, token: string | undefined): boolean {
  return tokens.use(token) || refused(core);
}

/**
 * Whether every field of `expected` (`client_id`, `client_secret`, a product's `api_key` …) is
 * given as that text (constant time; a missing or non-text field never matches); a refusal is
 * counted. `given`: a token request's form or parsed body.
 */
export function credentialsOk(core: SimCore, given: URLSearchParams | Record<string, unknown>, expected: Record<string, string>): boolean {
  const field = (name: string): unknown => (given instanceof URLSearchParams ? (given.get(name) ?? undefined) : given[name]);
  const ok = Object.entries(expected).every(([name, value]) => sameSecret(field(name), value));
  return ok || refused(core);
}

/** What a simulator hands `dialectSim`: its parts, all but `setup` and `expected` shared with every product. */
export interface SimParts {
  /** The `hrms_id` it speaks. */
  hrmsId: string;
  /** The base URL hrx is set up with: the listener's, or a path under it (BambooHR's gateway). */
  url: string;
  core: SimCore;
  staff: Staff;
  /** `false` for a product whose every request carries the stored credentials (Basic, API key). */
  issuesTokens: boolean;
  /** The secret that authenticates, and the wrong one `wrongSetup` gives (default: the secret plus `-wrong`). */
  secret: string;
  wrongSecret?: string;
  /** The setup-config pieces with `secret` where the product's secret goes. */
  setupWith(secret: string): Omit<SimSetup, 'hrms_id'>;
  /** Ground truth of served employee `i` (1-based), computed from the canonical employee. */
  expected(i: number): PartialEmployeeRecord;
  /** The product's id of employee `i` (default: its employee code, `EMP00007`). */
  idOf?(i: number): string;
  /** The employee code of a product id (default: the id is the code). */
  codeOf?(id: string): string;
  /** How `remove` shows (default: deleted). */
  removeMode?: RemoveMode;
  /** Clears the product's own logs with the counters. */
  resetStats?(): void;
}

/**
 * The `DialectSim` of `parts`, with the product's own controls `own` (its call logs, `breakAfter`
 * …) beside it: `setup`/`wrongSetup` name `hrmsId`, the served employees come from `staff`,
 * faults, counters and closing from `core`.
 */
export function dialectSim<X extends object = Record<never, never>>(parts: SimParts, own?: X): DialectSim & NoInfer<X> {
  const { core, staff } = parts;
  const setup = (secret: string): SimSetup => ({ hrms_id: parts.hrmsId, ...parts.setupWith(secret) });
  const code = (id: string): string => (parts.codeOf ? parts.codeOf(id) : id);
  const sim: DialectSim = {
    hrmsId: parts.hrmsId,
    url: parts.url,
    issuesTokens: parts.issuesTokens,
    setup: () => setup(parts.secret),
    wrongSetup: () => setup(parts.wrongSecret ?? `${parts.secret}-wrong`),
    expected: () => staff.served().map((i) => parts.expected(i)),
    employeeIds: () => staff.served().map((i) => (parts.idOf ? parts.idOf(i) : employeeCode(i))),
    change: (id) => staff.change(code(id)),
    remove: (id) => staff.remove(code(id), parts.removeMode),
    setFaults: (faults) => core.setFaults(faults),
    revokeTokens: () => core.revokeTokens(),
    stats: () => core.stats(),
    resetStats() {
      core.resetStats();
      parts.resetStats?.();
    },
    close: () => core.close(),
  };
  return Object.assign(sim, own);
}
