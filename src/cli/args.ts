/**
 * Small helpers of the CLI's commands (commander): option builders and parsers whose errors name
 * the valid values, and output (`--json` prints one JSON object on stdout, docs/cli.md).
 */
import { InvalidArgumentError, Option } from 'commander';
import { isUuid } from '../domain/ids';

/** A usage error found after parsing (e.g. two flags that exclude each other): exit code 2 with the command's help. */
export class UsageError extends Error {}

/** `--json`: every command that prints a result has it. */
export const jsonOption = (): Option => new Option('--json', 'print exactly one JSON object on stdout');

/** Parser of a UUID option value (an org's `uuid`, printed by `hrx org create`). */
export function uuidValue(v: string): string {
  if (!isUuid(v)) throw new InvalidArgumentError("not a UUID (an org's uuid, as `hrx org create` prints it).");
  return v;
}

/** Parser of an integer in [min, max]. */
export function intValue(min: number, max: number): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`must be an integer from ${min} to ${max}.`);
    return n;
  };
}

/** Parser of a number in [min, max]. */
export function numberValue(min: number, max: number): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n < min || n > max) throw new InvalidArgumentError(`must be a number from ${min} to ${max}.`);
    return n;
  };
}

/**
 * Parser of a repeatable `key=value` option (`--variant`): adds the pair to `previous`. A value
 * reads as a number when numeric, as a boolean when `true`/`false`, else as text. Throws
 * commander's InvalidArgumentError (a usage error naming the option) when there is no key.
 */
export function keyValue(v: string, previous: Record<string, string | number | boolean> = {}): Record<string, string | number | boolean> {
  const at = v.indexOf('=');
  const key = at > 0 ? v.slice(0, at).trim() : '';
  if (!key) throw new InvalidArgumentError('must be key=value (e.g. limitPerMinute=10).');
  const raw = v.slice(at + 1).trim();
  const value = raw === 'true' ? true : raw === 'false' ? false : raw !== '' && Number.isFinite(Number(raw)) ? Number(raw) : raw;
  return { ...previous, [key]: value };
}

/** `flags` restricted to `values` (commander lists them in the help and in the error). */
export function choiceOption(flags: string, description: string, values: readonly string[], dflt?: string): Option {
  const o = new Option(flags, description).choices(values);
  return dflt === undefined ? o : o.default(dflt);
}

/** Prints `value` as one JSON object (with --json) or as `key: value` lines. */
export function output(value: Record<string, unknown>, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(JSON.stringify(value) + '\n');
    return;
  }
  for (const [k, v] of Object.entries(value)) process.stdout.write(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}\n`);
}
