/**
 * The `hrx` command line (decisions §12): dispatches to the commands. Exit codes: 0 ok, 1 failure,
 * 2 usage error.
 */
import { ConfigError, loadConfig } from '../config';
import { describeError } from '../log-error';
import { AppError, renderError } from '../errors';
import { createLogger } from '../logger';
import { UsageError } from './args';
import { demoCommand } from './demo';
import { endpointCommand } from './endpoint';
import { basicCommand, clientCommand, keysCommand, serviceKeysCommand } from './keys';
import { apiKeyCommand, connectionCommand, migrateCommand, orgCommand } from './operator';
import { hrmsSimCommand, runCommand, type StartJobs } from './run';

const USAGE = `hrx: the HR data exchange service
  hrx demo                      set up and run everything on real input (embedded PostgreSQL)
  hrx start | serve | worker    API and worker | API only | worker only
  hrx migrate [--json]
  hrx org create --name N (--vendor | --client) [--domain D] [--json]
  hrx apikey create --org UUID [--json] | apikey list --org UUID [--json] | apikey revoke ID [--json]
  hrx connection create --vendor UUID --client UUID [--status S] [--shared a,b] [--sync-frequency F]
                        [--live-source] [--no-consent-required] [--json]
  hrx connection approve|reject ID [--json]
  hrx endpoint add --org VENDOR_UUID --url URL [--events a,b] [--json] | endpoint list --org UUID | endpoint remove ID
  hrx keys add --org UUID --jwk FILE [--json] | keys list --org UUID | keys revoke --org UUID --kid K
  hrx basic create --org UUID [--json] | basic revoke --org UUID --username U
  hrx service-keys rotate [--grace-hours H] [--json]
  hrx client employee --base-url URL --username U --password P --key PRIVATE_JWK_FILE [--kid K]
                      --connection ID --employee EMP [--source db|hrms] [--jwks FILE] [--json]
  hrx hrms-sim --port P --employees N --seed S --client-id ID --client-secret SECRET
               [--latency-ms MS] [--rate-429 F] [--rate-5xx F]`;

/**
 * Runs the CLI with `argv` (without node and script). `startJobs` starts the job side of
 * `worker`, `start` and `demo` (jobs/index.ts; bin/hrx.js passes it): `src/` never imports `jobs/`.
 */
export async function main(argv: string[], startJobs?: StartJobs): Promise<void> {
  const [cmd, ...rest] = argv;
  const long = cmd === 'serve' || cmd === 'worker' || cmd === 'start' || cmd === 'demo' || cmd === 'hrms-sim';
  try {
    const config = loadConfig();
    const log = createLogger(long ? config.LOG_LEVEL : (process.env.LOG_LEVEL ?? 'warn'));
    switch (cmd) {
      case 'serve': case 'worker': case 'start': return await runCommand(cmd, rest, config, log, startJobs);
      case 'demo': return await demoCommand(rest, config, log, startJobs);
      case 'hrms-sim': return await hrmsSimCommand(rest, log);
      case 'migrate': await migrateCommand(rest, config, log); break;
      case 'org': await orgCommand(rest, config, log); break;
      case 'apikey': await apiKeyCommand(rest, config, log); break;
      case 'connection': await connectionCommand(rest, config, log); break;
      case 'endpoint': await endpointCommand(rest, config, log); break;
      case 'keys': await keysCommand(rest, config, log); break;
      case 'basic': await basicCommand(rest, config, log); break;
      case 'service-keys': await serviceKeysCommand(rest, config, log); break;
      case 'client': await clientCommand(rest); break;
      case undefined: case 'help': case '--help': case '-h':
        process.stdout.write(USAGE + '\n');
        break;
      default:
        throw new UsageError(`unknown command "${cmd}"`);
    }
    process.exit(0);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`hrx: ${err.message}\n${USAGE}\n`);
      process.exit(2);
    }
    if (err instanceof ConfigError) {
      process.stderr.write(`hrx: ${err.message}\n`);
      process.exit(1);
    }
    if (err instanceof AppError) {
      process.stderr.write(`hrx: ${String(renderError(err, '-').body.message)}\n`);
      process.exit(1);
    }
    // Driver messages may quote SQL and values (decisions §15): name and code only.
    process.stderr.write(`hrx: ${describeError(err)}\n`);
    process.exit(1);
  }
}
