/**
 * The reference simulator (`server.ts`) behind the `DialectSim` interface, so the connector
 * conformance suite runs for `reference` like for every product. The reference API is hrx's own:
 * its ground truth is its own mapping (`reference/mapping.ts`). It lists no changes (its
 * definition is not incremental), so `change` is refused; `remove` drops the employee.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mapEmployee } from '../mapping';
import { employeeCode, employeeIndex, generateEmployee } from '../../sim/data';
import type { DialectFaults, DialectSim, DialectSimFactory, DialectSimOptions } from '../../sim/dialect';
import { listenSim, requestCounter } from '../../sim/listen';
import { createSimHandler } from '../../sim/server';

const CLIENT_ID = 'reference-sim-client';
const CLIENT_SECRET = 'reference-sim-secret';
/** The reference HRMS publishes no limit; the conformance suite checks the budget against this one. */
const LIMIT = { requests: 6000, windowMs: 60_000 };

/** Starts the reference simulator as a `DialectSim`. */
export const startReferenceDialect: DialectSimFactory = async (options: DialectSimOptions): Promise<DialectSim> => {
  const sim = createSimHandler({ employees: options.employees, seed: options.seed, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  const limit = options.limit ?? LIMIT;
  const counter = requestCounter(limit.windowMs);
  let requests = 0;
  let dataCalls = 0;
  let expireAfter = 0;
  // Throttling is spread evenly (every n-th data call), as the product simulators do it, so a
  // sync of a few pages always meets it.
  let throttleEvery = 0;
  let throttled = 0;
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    requests += 1;
    counter.hit();
    if (!req.url?.startsWith('/oauth/')) {
      dataCalls += 1;
      // Token expiry mid-sync: every `expireAfter` data calls the issued tokens stop working.
      if (expireAfter > 0 && dataCalls % expireAfter === 0) sim.control.revokeTokens();
      if (throttleEvery > 0 && dataCalls % throttleEvery === 0) {
        throttled += 1;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end('{"error":"rate_limited"}');
        return;
      }
    }
    sim.handle(req, res);
  };
  const listener = await listenSim(handle, {
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host ? { host: options.host } : {}),
    beforeClose: sim.close,
  });
  const { url } = listener;
  const setup = (secret: string) => ({
    hrms_id: 'reference',
    access_credentials: { hrms_host: url, grant_type: 'client_credentials', client_id: CLIENT_ID, client_secret: secret },
    api_configs: [],
  });
  const removed = new Set<number>();
  const served = (): number[] => {
    const out: number[] = [];
    for (let i = 1; i <= sim.control.employeeCount(); i++) if (!removed.has(i)) out.push(i);
    return out;
  };
  return {
    hrmsId: 'reference',
    url,
    setup: () => setup(CLIENT_SECRET),
    wrongSetup: () => setup(`${CLIENT_SECRET}-wrong`),
    expected: () => served().map((i) => mapEmployee(generateEmployee(options.seed, i))),
    employeeIds: () => served().map(employeeCode),
    change() {
      throw new Error('the reference HRMS lists no changes');
    },
    remove(employeeId) {
      const i = employeeIndex(employeeId);
      if (i === undefined || !sim.control.drop(employeeId)) throw new Error('no such employee');
      removed.add(i);
    },
    setFaults(faults: DialectFaults) {
      sim.control.set({
        ...(faults.latencyMs !== undefined ? { latencyMs: faults.latencyMs } : {}),
        ...(faults.rate5xx !== undefined ? { rate5xx: faults.rate5xx } : {}),
      });
      if (faults.tokenExpiresAfterCalls !== undefined) expireAfter = faults.tokenExpiresAfterCalls;
      if (faults.rateThrottle !== undefined) throttleEvery = faults.rateThrottle > 0 ? Math.max(2, Math.round(1 / faults.rateThrottle)) : 0;
    },
    revokeTokens: () => sim.control.revokeTokens(),
    stats() {
      const s = sim.control.stats();
      return {
        requests,
        tokenRequests: s.tokenRequests,
        throttled: s.served429 + throttled,
        authFailures: s.served401,
        maxInWindow: counter.max(),
        limit: { ...limit },
      };
    },
    resetStats() {
      sim.control.resetStats();
      counter.reset();
      requests = 0;
      throttled = 0;
    },
    close: listener.close,
  };
};
