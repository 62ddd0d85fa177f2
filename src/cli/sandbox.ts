/**
 * `hrx sandbox` (docs/cli.md, docs/docker.md "Sandbox"): on a running hrx (API and worker) and a
 * running reference HRMS simulator, creates the sandbox's vendor org "Sandbox Lender" with an API
 * key, the employer "Sandbox Employer" and their approved connection, posts the employer's
 * setup-config through the API, waits for the first read and prints the curl lines to try the
 * API. The one-shot service of the compose profile `sandbox` runs it. Run again, it finds the two
 * orgs by name and only issues the vendor a new API key (the first was shown once).
 */
import type { Command } from 'commander';
import type { Context } from '../context';
import { normalizeHostPort } from '../outbound/host-policy';
import { intValue, jsonOption, output } from './args';
import { CommandError, withContext, type Cli } from './runtime';
import { createTrial, trialCurlLines, trialReadUrl, waitForFirstRead, type TrialOrgs } from './trial';

const NAMES = { vendor: 'Sandbox Lender', client: 'Sandbox Employer', domain: 'sandbox.example' } as const;

/** Options of `hrx sandbox`. */
interface SandboxOptions {
  api?: string;
  publicUrl?: string;
  hrmsUrl: string;
  hrmsClientId: string;
  hrmsClientSecret: string;
  wait: number;
  json?: boolean;
}

/** The uuid of the org named `name` of `kind`, or undefined (every page is looked at). */
async function orgNamed(services: Context['services'], kind: 'vendor' | 'client', name: string): Promise<string | undefined> {
  for (let page = 1; ; page++) {
    const res = await services.orgList.list({ kind }, { page, pageSize: 100 });
    const hit = res.orgs.find((o) => o.org_name === name);
    if (hit) return hit.uuid;
    if (page >= res.pageInfo.totalPages) return undefined;
  }
}

/** The sandbox's orgs: found (a new API key) or created with their connection and setup-config. */
async function sandboxOrgs(ctx: Context, api: string, opts: SandboxOptions): Promise<TrialOrgs & { created: boolean }> {
  const vendorUuid = await orgNamed(ctx.services, 'vendor', NAMES.vendor);
  const clientUuid = await orgNamed(ctx.services, 'client', NAMES.client);
  if (vendorUuid && clientUuid) return { vendorUuid, clientUuid, apiKey: await ctx.services.orgs.createApiKey(vendorUuid), created: false };
  const trial = await createTrial(ctx.services, api, { url: opts.hrmsUrl, clientId: opts.hrmsClientId, clientSecret: opts.hrmsClientSecret }, NAMES);
  return { ...trial, created: true };
}

/**
 * The `host:port` of `url` as the HRMS host guard compares it (`normalizeHostPort`; the scheme's
 * default port when the URL names none), or null when `url` is not an http(s) URL.
 */
function sandboxHost(url: string): string | null {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return normalizeHostPort(`${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`);
  } catch {
    return null;
  }
}

/** Registers `sandbox`. */
export function registerSandboxCommand(program: Command, cli: Cli): void {
  program
    .command('sandbox')
    .description(
      'on a running hrx and reference HRMS: create a demo vendor (with an API key), employer and approved connection, post setup-config, wait for the first read; prints curl lines',
    )
    .requiredOption('--hrms-url <url>', 'the reference HRMS simulator, as hrx reaches it (e.g. http://hrms-sim:9100)')
    .requiredOption('--hrms-client-id <id>', "the simulator's --client-id")
    .requiredOption('--hrms-client-secret <secret>', "the simulator's --client-secret")
    .option('--api <url>', 'the hrx API, as this command reaches it, base path included (default: http://127.0.0.1:PORT plus HRX_BASE_PATH)')
    .option('--public-url <url>', 'the hrx API as the reader reaches it, for the curl lines (default: HRX_PUBLIC_URL plus HRX_BASE_PATH, else --api)')
    .option('--wait <seconds>', 'how long to wait for the first read (0: do not wait)', intValue(0, 3600), 180)
    .addOption(jsonOption())
    .addHelpText(
      'after',
      '\nPrints {created, vendor_org, client_org, api_key, read_url, employee} with --json. The HRMS is on a private network:\nhrx, its worker and this command need its host and port in HRX_HRMS_ALLOWED_HOSTS (or HRX_HRMS_ALLOW_PRIVATE_HOSTS=1). docs/docker.md "Sandbox" runs it in compose.',
    )
    .action(async (opts: SandboxOptions) => {
      const { config } = cli.env();
      // The simulator's host must be reachable though private: named with its port in HRX_HRMS_ALLOWED_HOSTS (the
      // guard stays on for every other host) or every private host allowed.
      const simHost = sandboxHost(opts.hrmsUrl);
      if (!config.HRX_HRMS_ALLOW_PRIVATE_HOSTS && !(simHost !== null && config.HRX_HRMS_ALLOWED_HOSTS.includes(simHost)))
        throw new CommandError(
          `the sandbox's HRMS runs on a private network: set HRX_HRMS_ALLOWED_HOSTS=${simHost ?? '<its host:port>'} (or HRX_HRMS_ALLOW_PRIVATE_HOSTS=1) for hrx, its worker and this command (docs/docker.md "Sandbox")`,
        );
      const api = (opts.api ?? `http://127.0.0.1:${config.PORT}${config.HRX_BASE_PATH}`).replace(/\/+$/, '');
      const base = (opts.publicUrl ?? (config.HRX_PUBLIC_URL ? `${config.HRX_PUBLIC_URL.replace(/\/+$/, '')}${config.HRX_BASE_PATH}` : api)).replace(
        /\/+$/,
        '',
      );
      const trial = await withContext(cli, (ctx) => sandboxOrgs(ctx, api, opts));
      const employee = opts.wait > 0 ? await waitForFirstRead(api, trial, opts.wait * 1000) : undefined;
      if (opts.json) {
        output(
          {
            created: trial.created,
            vendor_org: trial.vendorUuid,
            client_org: trial.clientUuid,
            api_key: trial.apiKey,
            read_url: trialReadUrl(base, trial),
            ...(employee ? { employee } : {}),
          },
          true,
        );
        return;
      }
      const lines = [
        trial.created
          ? `The sandbox is set up: vendor "${NAMES.vendor}" (${trial.vendorUuid}), employer "${NAMES.client}" (${trial.clientUuid}), an approved connection.`
          : `The sandbox was set up before: vendor "${NAMES.vendor}" (${trial.vendorUuid}) gets a new API key.`,
        employee ? `First read done: EMP00001 is ${employee}.` : 'Not waiting for the first sync (--wait 0).',
        `The vendor's API key (shown this once): ${trial.apiKey}`,
        '',
        ...trialCurlLines(base, trial),
        '',
      ];
      process.stdout.write(lines.join('\n') + '\n');
    });
}
