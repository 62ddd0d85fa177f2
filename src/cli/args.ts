/**
 * Small helpers of the CLI: flag parsing (node:util parseArgs) and output (`--json` prints one
 * JSON object on stdout, decisions §12).
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

/** A usage error: printed with the command's usage, exit code 2. */
export class UsageError extends Error {}

/** Parses `argv` against `options`; throws UsageError on unknown or malformed flags. */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options: { ...options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Prints `value` as one JSON object (with --json) or as `key: value` lines. */
export function output(value: Record<string, unknown>, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(JSON.stringify(value) + '\n');
    return;
  }
  for (const [k, v] of Object.entries(value)) process.stdout.write(`${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}\n`);
}

/** The value of a required string flag; throws UsageError when absent. */
export function required(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new UsageError(`--${name} is required`);
  return v;
}
