/**
 * Configuration, read from the environment and validated once at start (decisions.md §13).
 * Throws `ConfigError` naming the first bad variable; never echoes secret values.
 */
import { z } from 'zod';

const base64Key = z.string().refine((v) => Buffer.from(v, 'base64').length === 32, {
  message: 'must be 32 bytes, base64-encoded',
});

/** The `HRX_ADMIN_TOKEN` default docker-compose.yml once shipped: refused, as anyone can read it. */
export const ADMIN_TOKEN_PLACEHOLDER = 'change-me-to-a-long-random-token';
const MIN_ADMIN_TOKEN_LENGTH = 24;

/** Common (public) e-mail domains of decisions §8: an SDK token for these resolves by `org_name`. */
export const DEFAULT_COMMON_EMAIL_DOMAINS = [
  'gmail.com', 'googlemail.com', 'yahoo.com', 'yahoo.co.in', 'outlook.com', 'hotmail.com', 'live.com', 'msn.com',
  'icloud.com', 'me.com', 'aol.com', 'rediffmail.com', 'protonmail.com', 'proton.me', 'zoho.com', 'zohomail.in',
  'yandex.com', 'gmx.com', 'mail.com',
] as const;

/** Default delivery retry delays: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (8 attempts over 27.6 h). */
const DEFAULT_EVENTS_RETRY_SCHEDULE = '5000,300000,1800000,7200000,18000000,36000000,36000000';

/** `a,b,c` of 1 to 50 positive integer milliseconds (each at most 7 days). */
function parseSchedule(v: string, ctx: z.RefinementCtx): number[] {
  const parts = v.split(',').map((s) => s.trim());
  const ms = parts.map(Number);
  if (parts.length > 50 || ms.some((n, i) => parts[i] === '' || !Number.isInteger(n) || n < 1 || n > 7 * 86_400_000)) {
    ctx.addIssue({ code: 'custom', message: 'must be 1 to 50 comma-separated positive integers (ms)' });
    return z.NEVER;
  }
  return ms;
}

const schema = z.object({
  DATABASE_URL: z.string().url().optional(),
  /** Schema to use inside the database (tests use one per file). */
  HRX_DB_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/).default('public'),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** Prefix of every Redis key and BullMQ queue (tests use one per file). */
  HRX_REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_:-]+$/).default('hrx'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  HRX_DATA_DIR: z.string().default('./.hrx'),
  HRX_MASTER_KEY: base64Key.optional(),
  /** Retired master keys, comma-separated base64, still used to decrypt (rotation). */
  HRX_MASTER_KEYS_RETIRED: z.string().default(''),
  /** The operator token (job dashboard); at least 24 characters, never the old compose placeholder. */
  HRX_ADMIN_TOKEN: z.string()
    .refine((v) => v !== ADMIN_TOKEN_PLACEHOLDER, { message: 'is the published placeholder; set a long random token (e.g. head -c 24 /dev/urandom | base64)' })
    .refine((v) => v.length >= MIN_ADMIN_TOKEN_LENGTH, { message: `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (e.g. head -c 24 /dev/urandom | base64)` })
    .optional(),
  HRX_BASE_PATH: z.string().regex(/^(\/[A-Za-z0-9._~-]+)*$/).default(''),
  HRX_PUBLIC_URL: z.string().url().optional(),
  HRX_DISPLAY_TIMEZONE: z.string().default('Asia/Kolkata'),
  HRX_MAX_BODY_BYTES: z.coerce.number().int().positive().default(1024 * 1024),
  /** Requests per API key or V2 Basic credential per window, shared by every API process (decisions §11); 0 disables. */
  HRX_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(1e12).default(600),
  /** The rate limit's window (ms); a test and tuning knob: the limit then applies per this window. */
  HRX_RATE_LIMIT_WINDOW_MS: z.coerce.number().int().min(1).max(86_400_000).default(60_000),
  /** Failed authentications allowed per source address and per presented id per window (decisions §2); 0 disables. */
  HRX_AUTH_FAILURE_LIMIT: z.coerce.number().int().min(0).max(1e9).default(20),
  /** The failed-authentication window (ms). */
  HRX_AUTH_FAILURE_WINDOW_MS: z.coerce.number().int().min(1).max(86_400_000).default(60_000),
  /** `1`: the source address is the last `X-Forwarded-For` entry (behind a reverse proxy, src/auth/source.ts). */
  HRX_TRUST_PROXY: z.enum(['0', '1']).default('0').transform((v) => v === '1'),
  /** How long (ms) an API process trusts a cached API-key lookup should a revocation message be lost. */
  HRX_API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
  /** Upper bound (ms) of how stale a process's connection cache may be if a pub/sub message is lost. */
  HRX_CONNECTION_CACHE_TTL_MS: z.coerce.number().int().min(0).max(60_000).default(2000),
  /** How long (ms) the audit writer collects entries before committing a batch (group commit). */
  HRX_AUDIT_WINDOW_MS: z.coerce.number().int().min(0).max(50).default(2),
  /** Seconds a sync lock lives without renewal; a dead worker's lock is gone after it. */
  HRX_SYNC_LOCK_TTL_SEC: z.coerce.number().int().min(5).max(60).default(30),
  /**
   * Seconds a sync waits for its HRMS's next page before it gives up: the HRMS calls are aborted,
   * the run fails (`hrms_stalled`) and the sync lock is released, so termination is not refused by
   * a dead HRMS.
   */
  HRX_SYNC_HRMS_STALL_SEC: z.coerce.number().int().min(1).max(3600).default(60),
  /** Employees per upsert batch. */
  HRX_SYNC_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(500),
  /** HRMS retries per request and their base delay (ms). */
  HRX_HRMS_RETRIES: z.coerce.number().int().min(0).max(20).default(6),
  HRX_HRMS_RETRY_MIN_MS: z.coerce.number().int().min(0).default(500),
  /**
   * `1` lets HRMS hosts be (or resolve to) loopback, private, link-local and other reserved
   * addresses (a local simulator, an HRMS on the operator's own network); `0` (default) refuses
   * them (SSRF guard, `src/outbound/host-policy.ts`).
   */
  HRX_HRMS_ALLOW_PRIVATE_HOSTS: z.enum(['0', '1']).default('0').transform((v) => v === '1'),
  /**
   * Largest HRMS response body hrx reads, in bytes after decompression (decisions §11: 64 MiB);
   * a larger answer aborts that request (`bad_response`).
   */
  HRX_HRMS_MAX_RESPONSE_BYTES: z.coerce.number().int().min(1024).max(1024 * 1024 * 1024).default(64 * 1024 * 1024),
  /** Common e-mail domains (comma-separated) replacing the default list of decisions §8. */
  HRX_COMMON_EMAIL_DOMAINS: z.string().default(DEFAULT_COMMON_EMAIL_DOMAINS.join(','))
    .transform((s) => s.split(',').map((d) => d.trim().toLowerCase()).filter(Boolean)),
  /**
   * CSP `frame-ancestors` sources of the Connect page: `'none'` (default: it opens in its own
   * window) or the vendor origins allowed to embed it in a frame, space-separated.
   */
  HRX_CONNECT_FRAME_ANCESTORS: z.string().regex(/^[A-Za-z0-9 '*:/._-]+$/, 'must be CSP source expressions').default("'none'"),
  /** Events to vendors (decisions §10): delays (ms) between delivery attempts; attempts = entries + 1. */
  HRX_EVENTS_RETRY_SCHEDULE_MS: z.string().default(DEFAULT_EVENTS_RETRY_SCHEDULE).transform(parseSchedule),
  /** Timeout (ms) of one delivery request. */
  HRX_EVENTS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** `1` allows http endpoint URLs on loopback hosts (local receivers, tests); otherwise https only. */
  HRX_EVENTS_ALLOW_HTTP_LOOPBACK: z.enum(['0', '1']).default('0').transform((v) => v === '1'),
  /**
   * `1` delivers events to endpoints on private, loopback, link-local and reserved addresses;
   * otherwise refused at connection time (SSRF guard, src/outbound/host-policy.ts).
   * HRX_EVENTS_ALLOW_HTTP_LOOPBACK=1 implies it (a loopback receiver is such an address).
   */
  HRX_EVENTS_ALLOW_PRIVATE_HOSTS: z.enum(['0', '1']).default('0').transform((v) => v === '1'),
  /** How often (ms) expired consents are looked for, and how often the outbox relay runs. */
  HRX_EVENTS_CONSENT_SCAN_MS: z.coerce.number().int().min(100).default(60_000),
  HRX_EVENTS_RELAY_MS: z.coerce.number().int().min(100).default(10_000),
  /** Deliveries one events worker makes at once. */
  HRX_EVENTS_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(8),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

/** The validated configuration. */
export type Config = z.infer<typeof schema> & { masterKeys: { current: Buffer; retired: Buffer[] } | null };

/** A bad environment variable; the message names it but never shows its value. */
export class ConfigError extends Error {}

/**
 * Parses `env` (default `process.env`). `masterKeys` is null when `HRX_MASTER_KEY` is unset,
 * which is allowed only without `DATABASE_URL` (the embedded mode generates one, see db/embedded).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid configuration: ${issue.path.join('.')} ${issue.message}`);
  }
  const c = parsed.data;
  if (c.DATABASE_URL && !c.HRX_MASTER_KEY) {
    throw new ConfigError('Invalid configuration: HRX_MASTER_KEY is required when DATABASE_URL is set');
  }
  const retired = c.HRX_MASTER_KEYS_RETIRED.split(',').map((s) => s.trim()).filter(Boolean);
  for (const k of retired) {
    if (Buffer.from(k, 'base64').length !== 32) throw new ConfigError('Invalid configuration: HRX_MASTER_KEYS_RETIRED entries must be 32 bytes, base64');
  }
  return {
    ...c,
    masterKeys: c.HRX_MASTER_KEY
      ? { current: Buffer.from(c.HRX_MASTER_KEY, 'base64'), retired: retired.map((k) => Buffer.from(k, 'base64')) }
      : null,
  };
}
