/**
 * The `hrx` command line (docs/cli.md), on commander: every command and subcommand has
 * `--help` listing its options with their defaults and allowed values. Exit codes: 0 ok, 1 the
 * command failed (one `hrx: <reason>` line on stderr, never SQL or a secret), 2 usage error (the
 * reason, then the command's help).
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Help, type Option } from 'commander';
import { loadConfig, type Config } from '../config';
import { createLogger, type Logger } from '../logger';
import { UsageError } from './args';
import { registerCredentialCommands } from './credential';
import { registerEndpointCommands } from './endpoint';
import { plainError } from './errors';
import { registerKeyCommands } from './keys';
import { registerLongCommands } from './long';
import { registerOperatorCommands } from './operator';
import type { Cli, StartJobs } from './runtime';
import { registerSandboxCommand } from './sandbox';
import { registerSyncCommands } from './sync';

const ENVIRONMENT_HELP = `
Environment (docs/settings.md lists every setting):
  DATABASE_URL      PostgreSQL (unset: an embedded server under HRX_DATA_DIR, default ./.hrx)
  REDIS_URL         Redis (default redis://127.0.0.1:6379)
  HRX_MASTER_KEY    32 bytes, base64 (required with DATABASE_URL)
  HOST, PORT        where the API listens (default 127.0.0.1:8080)
  LOG_LEVEL         fatal|error|warn|info|debug|trace|silent (default info; one-shot commands: warn)

Run "hrx <command> --help" for a command's options.`;

/** The help's option lines: commander's, with "(required)" on mandatory options. */
class HrxHelp extends Help {
  override optionDescription(option: Option): string {
    const text = super.optionDescription(option);
    return option.mandatory ? `${text} (required)` : text;
  }
}

/** A command whose help is {@link HrxHelp}, as are its subcommands'. */
class HrxCommand extends Command {
  override createCommand(name?: string): Command {
    return new HrxCommand(name);
  }

  override createHelp(): Help {
    return Object.assign(new HrxHelp(), this.configureHelp());
  }
}

/** hrx's release version: package.json's `version` (CHANGELOG.md says what each one brought). */
export const HRX_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Builds the program: every command, on `cli`. The root's settings are inherited by each command made after them. */
export function buildProgram(cli: Cli): Command {
  const program = new HrxCommand('hrx')
    .description('hrx: the HR data exchange service')
    .version(HRX_VERSION, '-V, --version', 'print the version of hrx')
    .configureOutput({ outputError: (str, write) => write(str.replace(/^error: /, 'hrx: ')) })
    .showHelpAfterError()
    .exitOverride()
    .addHelpText('after', ENVIRONMENT_HELP);
  registerLongCommands(program, cli);
  registerOperatorCommands(program, cli);
  registerSyncCommands(program, cli);
  registerEndpointCommands(program, cli);
  registerKeyCommands(program, cli);
  registerCredentialCommands(program);
  registerSandboxCommand(program, cli);
  return program;
}

/** The command `argv` names (the deepest subcommand matched), for its help after a usage error. */
function commandOf(program: Command, argv: string[]): Command {
  let cmd = program;
  for (const arg of argv) {
    const sub = cmd.commands.find((c) => c.name() === arg);
    if (!sub) break;
    cmd = sub;
  }
  return cmd;
}

/**
 * Runs the CLI with `argv` (without node and script). `startJobs` starts the job side of
 * `worker`, `start` and `demo` (jobs/index.ts; bin/hrx.js passes it): `src/` never imports `jobs/`.
 */
export async function main(argv: string[], startJobs?: StartJobs): Promise<void> {
  let loaded: { config: Config; log: Logger } | undefined;
  let stayUp = false;
  const cli: Cli = {
    env(long = false) {
      if (!loaded) {
        const config = loadConfig();
        loaded = { config, log: createLogger(long ? config.LOG_LEVEL : (process.env.LOG_LEVEL ?? 'warn')) };
      }
      return loaded;
    },
    startJobs,
    keepRunning() {
      stayUp = true;
    },
  };
  const program = buildProgram(cli);
  if (argv.length === 0) {
    program.outputHelp();
    process.exit(0);
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    if (!stayUp) process.exit();
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help asked for (or a group without its subcommand): 0; any other parse error: 2.
      process.exit(err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : 2);
    }
    if (err instanceof UsageError) {
      process.stderr.write(`hrx: ${err.message}\n${commandOf(program, argv).helpInformation()}`);
      process.exit(2);
    }
    process.stderr.write(`hrx: ${plainError(err)}\n`);
    process.exit(1);
  }
}
