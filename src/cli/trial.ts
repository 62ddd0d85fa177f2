/**
 * What `hrx demo` and `hrx sandbox` set up on a running hrx and a running reference HRMS: a
 * vendor org with an API key, a client org, an approved connection sharing every data point
 * without consent, the client's setup-config through the real API (so the first sync is queued
 * as an employer's would be), the wait for the first read, and the curl lines to try it.
 */
import type { Context } from '../context';
import { CommandError } from './runtime';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The reference HRMS as hrx reaches it, with the client credentials it accepts. */
export interface TrialHrms {
  url: string;
  clientId: string;
  clientSecret: string;
}

/** A trial's orgs: the vendor's uuid and API key, the client's uuid. */
export interface TrialOrgs {
  vendorUuid: string;
  clientUuid: string;
  apiKey: string;
}

/** The names of a trial's orgs and the client's e-mail domain. */
export interface TrialNames {
  vendor: string;
  client: string;
  domain: string;
}

/**
 * Creates the vendor and client orgs, the vendor's API key and the approved connection, then posts
 * the client's setup-config to the API at `apiUrl` (base path included). Throws when
 * setup-config is not answered 200 (CommandError with its answer: hrx's envelope, no secret).
 */
export async function createTrial(services: Context['services'], apiUrl: string, hrms: TrialHrms, names: TrialNames): Promise<TrialOrgs> {
  const vendor = await services.orgs.create({ name: names.vendor, vendor: true, client: false });
  const client = await services.orgs.create({ name: names.client, vendor: false, client: true, domain: names.domain });
  const apiKey = await services.orgs.createApiKey(vendor.org.uuid);
  await services.connections.create({
    vendorUuid: vendor.org.uuid,
    clientUuid: client.org.uuid,
    status: 'approved',
    syncFrequency: 'hourly',
    consentRequired: false,
  });
  const setup = await fetch(`${apiUrl}/api/webhook/v1/setup-config/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_id: client.org.appKey,
      client_secret: client.appSecret,
      hrms_id: 'reference',
      access_credentials: { client_id: hrms.clientId, client_secret: hrms.clientSecret, api_key: '', grant_type: 'client_credentials', hrms_host: hrms.url },
      api_configs: [],
    }),
  });
  if (setup.status !== 200) throw new CommandError(`setup-config answered ${setup.status}: ${await setup.text()}`);
  return { vendorUuid: vendor.org.uuid, clientUuid: client.org.uuid, apiKey };
}

/** The URL of the trial's first read: employee EMP00001 of the client, for the vendor. */
export const trialReadUrl = (apiUrl: string, t: TrialOrgs): string => `${apiUrl}/api/employee_details/EMP00001?org=${t.clientUuid}&vendor_org=${t.vendorUuid}`;

/** EMP00001's pay history, 12 months (docs/pay-history.md "Read"). */
export const trialPayHistoryUrl = (apiUrl: string, t: TrialOrgs): string =>
  `${apiUrl}/api/employee_details/EMP00001/pay_history/?org=${t.clientUuid}&vendor_org=${t.vendorUuid}&months=12`;

/** One pay month as the demo prints it (the connection shares every data point). */
export interface TrialPayMonth {
  year: number;
  month: number;
  grossPay: number | null;
  netPay: number | null;
}

/**
 * EMP00001's 12 newest pay months. The first read can succeed once the employee pages are stored,
 * before the same sync's payroll backfill has recorded the months (docs/sync.md "Pay history"), so this reads
 * every 250 ms until 12 months are there or `timeoutMs` passes, then answers what it has.
 * Throws CommandError on an answer other than 200.
 */
export async function readTrialPayHistory(apiUrl: string, t: TrialOrgs, timeoutMs = 60_000): Promise<TrialPayMonth[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(trialPayHistoryUrl(apiUrl, t), { headers: { username: t.apiKey }, signal: AbortSignal.timeout(30_000) });
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new CommandError(`pay history read: HTTP ${res.status}`);
    }
    const months = ((await res.json()) as { data: { months: TrialPayMonth[] } }).data.months;
    if (months.length >= 12 || Date.now() >= deadline) return months;
    await sleep(250);
  }
}

/**
 * Reads EMP00001 every 250 ms until it is served (the first sync has run); returns its name.
 * Throws CommandError when no read succeeds within `timeoutMs`.
 */
export async function waitForFirstRead(apiUrl: string, t: TrialOrgs, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let status: number | undefined;
  while (Date.now() < deadline) {
    const res = await fetch(trialReadUrl(apiUrl, t), { headers: { username: t.apiKey } });
    status = res.status;
    if (status === 200) return ((await res.json()) as { data: { name: string } }).data.name;
    await res.body?.cancel();
    await sleep(250);
  }
  throw new CommandError(`no successful read within ${Math.round(timeoutMs / 1000)} s (last status ${status}): is the worker running?`);
}

/** The copy-pasteable curl lines of a trial, against `base` (where the reader reaches the API). */
export function trialCurlLines(base: string, t: TrialOrgs): string[] {
  return [
    "# Read a synced employee (masked, filtered to what the connection shares; the demo's connection needs no consent, a real one does):",
    `curl -s -H 'username: ${t.apiKey}' '${trialReadUrl(base, t)}'`,
    '',
    '# Its pay history, the 12 newest pay months, newest first (months 1 to 36):',
    `curl -s -H 'username: ${t.apiKey}' '${trialPayHistoryUrl(base, t)}'`,
    '',
    "# The vendor's connections:",
    `curl -s -H 'Authorization: ${t.apiKey}' '${base}/api/vendor/connections/?page=1&page_size=20'`,
    '',
    '# The client org record:',
    `curl -s -H 'Authorization: ${t.apiKey}' '${base}/api/org_details/${t.clientUuid}/'`,
    '',
    '# Terminate the connection: FINAL, it cannot be undone (the reads above stop working; a new connection needs the Connect flow again):',
    `curl -s -H 'Authorization: ${t.apiKey}' -F client_org=${t.clientUuid} '${base}/api/terminate_connection/'`,
  ];
}
