/**
 * Configuration, read from the environment and validated once at start (docs/settings.md).
 * Throws `ConfigError` naming the first bad variable; never echoes secret values.
 */
import { z } from 'zod';
import { normalizeHostPort } from './outbound/host-policy';

const base64Key = z.string().refine((v) => Buffer.from(v, 'base64').length === 32, {
  message: 'must be 32 bytes, base64-encoded',
});

/** The `HRX_ADMIN_TOKEN` default docker-compose.yml once shipped: refused, as anyone can read it. */
export const ADMIN_TOKEN_PLACEHOLDER = 'change-me-to-a-long-random-token';
const MIN_ADMIN_TOKEN_LENGTH = 24;

/** Common (public) e-mail domains of docs/connect.md "E-mail verification before an organisation is set up": an SDK token for these resolves by `org_name`. */
export const DEFAULT_COMMON_EMAIL_DOMAINS = [
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'yahoo.co.in',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'icloud.com',
  'me.com',
  'aol.com',
  'rediffmail.com',
  'protonmail.com',
  'proton.me',
  'zoho.com',
  'zohomail.in',
  'yandex.com',
  'gmx.com',
  'mail.com',
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

/**
 * The settings, each with its description: `npm run docs` writes docs/settings.md from this
 * schema (scripts/docs/generate.ts), and a unit test fails when that file is stale.
 */
export const configSchema = z.object({
  DATABASE_URL: z
    .string()
    .url()
    .optional()
    .describe(
      'PostgreSQL URL. The database must exist: hrx never creates one, and a name that does not exist is an error naming it (`createdb NAME` first). Unset: an embedded PostgreSQL under `HRX_DATA_DIR` (demo and trials only), whose `hrx` database hrx creates.',
    ),
  HRX_DB_SCHEMA: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/)
    .default('public')
    .describe("Schema inside the database that holds hrx's tables (the tests use one per file)."),
  HRX_DB_POOL_MODE: z
    .enum(['session', 'transaction'])
    .default('session')
    .describe(
      'How `search_path` and the statement limits reach PostgreSQL (docs/operations.md "PostgreSQL through PgBouncer"). `session`: as startup parameters of each connection, checked when each pool opens; for a direct connection (or a pooler that passes startup parameters through). `transaction`: with every transaction (`SET LOCAL`), for PgBouncer with `pool_mode = transaction`; a statement outside a transaction then costs two more round trips.',
    ),
  REDIS_URL: z
    .string()
    .default('redis://127.0.0.1:6379')
    .describe(
      "Redis URL: queues, locks, rate limits, replay marks and cache announcements. With `HRX_REDIS_CLUSTER=1`: one or more seed nodes of the cluster, comma-separated (`redis://h1:6379,redis://h2:6379`); the first one's username, password and `rediss:` apply to every node.",
    ),
  HRX_REDIS_CLUSTER: z
    .enum(['0', '1'])
    .default('0')
    .transform((v) => v === '1')
    .describe(
      '`1`: `REDIS_URL` names a Redis Cluster, whose nodes hrx discovers from its seeds (docs/operations.md "Redis Cluster"). `0`: one Redis server (or a proxy that looks like one).',
    ),
  HRX_REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_:-]+$/)
    .default('hrx')
    .describe('Prefix of every Redis key and BullMQ queue (the tests use one per file).'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080).describe('TCP port of the API.'),
  HOST: z.string().default('127.0.0.1').describe('Address the API listens on (`0.0.0.0` for every interface).'),
  HRX_PROCESSES: z
    .string()
    .regex(/^(auto|[1-9][0-9]{0,2})$/, { message: 'must be auto or a whole number from 1 to 999' })
    .default('1')
    .describe(
      'API processes of `hrx serve` on this machine, sharing `PORT` (`auto`: one per core); `--processes` overrides it. See docs/operations.md "Several processes on one machine".',
    ),
  HRX_DATA_DIR: z.string().default('./.hrx').describe('Folder of the embedded PostgreSQL and its generated master key (without `DATABASE_URL` only).'),
  HRX_EMBEDDED_PG_PORT: z.coerce
    .number()
    .int()
    .min(1)
    .max(65535)
    .default(54329)
    .describe('Port of the embedded PostgreSQL (without `DATABASE_URL` only); fixed so every hrx process of a data folder finds it.'),
  HRX_MASTER_KEY: base64Key
    .optional()
    .describe(
      '32 random bytes, base64: every key for encryption at rest and keyed hashes derives from it. Required with `DATABASE_URL`; keep it safe and never change it without `HRX_MASTER_KEYS_RETIRED`.',
    ),
  HRX_MASTER_KEYS_RETIRED: z.string().default('').describe('Former master keys, comma-separated base64, still used to decrypt after a rotation.'),
  HRX_ADMIN_TOKEN: z
    .string()
    .refine((v) => v !== ADMIN_TOKEN_PLACEHOLDER, { message: 'is the published placeholder; set a long random token (e.g. head -c 24 /dev/urandom | base64)' })
    .refine((v) => v.length >= MIN_ADMIN_TOKEN_LENGTH, {
      message: `must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters (e.g. head -c 24 /dev/urandom | base64)`,
    })
    .optional()
    .describe(
      `The operator token (job dashboard \`/admin/queues\`); at least ${MIN_ADMIN_TOKEN_LENGTH} characters, never the placeholder older compose files shipped. Unset: the dashboard is closed.`,
    ),
  HRX_BASE_PATH: z
    .string()
    .regex(/^(\/[A-Za-z0-9._~-]+)*$/)
    .default('')
    .describe('Path every route is served under, e.g. `/sandbox` (empty: the root).'),
  HRX_PUBLIC_URL: z
    .string()
    .url()
    .optional()
    .describe('The URL clients reach hrx at (scheme, host, port; without the base path): links, the OpenAPI `servers` entry, and `Secure` cookies when https.'),
  HRX_CREDENTIAL_TTL_DAYS: z.coerce
    .number()
    .int()
    .min(1)
    .max(366)
    .default(30)
    .describe('Days an employment and income credential is valid for (its `exp`, docs/credentials.md).'),
  HRX_DISPLAY_TIMEZONE: z.string().default('Asia/Kolkata').describe('Time zone of the human-readable dates of vendor connections.'),
  HRX_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024)
    .describe('Largest request body in bytes; larger is `413 Request body too large`.'),
  HRX_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .max(1e12)
    .default(600)
    .describe('Requests per API key or V2 Basic credential per window, shared by every API process; `0` disables the limit.'),
  HRX_CONNECT_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(0)
    .max(1e9)
    .default(120)
    .describe('Requests per Connect session per window (a bucket of its own, keyed by the session), shared by every API process; `0` disables the limit.'),
  HRX_SDK_CREATIONS_PER_DAY: z.coerce
    .number()
    .int()
    .min(0)
    .max(1e9)
    .default(100)
    .describe(
      'Client orgs, and users, that one vendor’s SDK token requests may create in any 24 hours (each kind counted apart); past it the request is `429` with `Retry-After` and creates nothing; `0` disables the limit.',
    ),
  HRX_RATE_LIMIT_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(1)
    .max(86_400_000)
    .default(60_000)
    .describe("The rate limit's window in ms (a test and tuning knob: the limit then applies per this window)."),
  HRX_AUTH_FAILURE_LIMIT: z.coerce
    .number()
    .int()
    .min(0)
    .max(1e9)
    .default(20)
    .describe('Failed authentications allowed per source address and per presented id per window; `0` disables.'),
  HRX_AUTH_FAILURE_WINDOW_MS: z.coerce.number().int().min(1).max(86_400_000).default(60_000).describe('The failed-authentication window in ms.'),
  HRX_TRUST_PROXY: z
    .enum(['0', '1'])
    .default('0')
    .transform((v) => v === '1')
    .describe('`1`: the source address is the last `X-Forwarded-For` entry (only behind a reverse proxy that appends it and is the sole way in).'),
  HRX_API_KEY_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(1000)
    .describe('How long (ms) an API process trusts a cached API-key lookup or V2 Basic check, should a revocation message be lost.'),
  HRX_CONNECTION_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(2000)
    .describe("Upper bound (ms) of how stale a process's connection cache may be if a change announcement is lost."),
  HRX_AUDIT_WINDOW_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(50)
    .default(2)
    .describe('How long (ms) the audit writer collects live-read entries before committing them as one batch.'),
  HRX_SYNC_LOCK_TTL_SEC: z.coerce
    .number()
    .int()
    .min(5)
    .max(60)
    .default(30)
    .describe("Seconds a sync lock lives without renewal; a dead worker's lock is gone after it."),
  HRX_SYNC_HRMS_STALL_SEC: z.coerce
    .number()
    .int()
    .min(1)
    .max(3600)
    .default(60)
    .describe(
      "Seconds the HRMS may answer nothing at all before a sync gives up (`hrms_stalled`), releasing its lock; waiting out throttling or the tenant's request budget is not counted.",
    ),
  HRX_SYNC_MAX_EMPLOYEES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000_000)
    .default(1_000_000)
    .describe(
      'Employees one sync run takes at most (listed, and reported removed); an HRMS listing more ends the run `failed` (`bound_exceeded`): nothing past the bound is stored and nobody is marked removed.',
    ),
  HRX_SYNC_MAX_PAGES: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000_000)
    .optional()
    .describe(
      'Pages of the HRMS listing one sync run takes at most; a longer listing ends the run `failed` (`bound_exceeded`). Unset: `HRX_SYNC_MAX_EMPLOYEES` divided by the smaller of `HRX_SYNC_BATCH_SIZE` and 10, plus 100.',
    ),
  HRX_SYNC_BATCH_SIZE: z.coerce.number().int().min(1).max(5000).default(500).describe('Employees asked of the HRMS per page, and written per upsert.'),
  HRX_HRMS_RETRIES: z.coerce.number().int().min(0).max(20).default(6).describe('Retries of one HRMS request (429, 5xx, network errors).'),
  HRX_HRMS_RETRY_MIN_MS: z.coerce.number().int().min(0).default(500).describe("Base delay (ms) of the HRMS retries' exponential backoff."),
  HRX_HRMS_ALLOW_PRIVATE_HOSTS: z
    .enum(['0', '1'])
    .default('0')
    .transform((v) => v === '1')
    .describe(
      "`1` lets HRMS hosts be (or resolve to) loopback, private, link-local and other reserved addresses: a local simulator, an HRMS on the operator's own network. `0` refuses them (SSRF guard).",
    ),
  HRX_HRMS_ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const hosts = v
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean);
      const normalized = hosts.map(normalizeHostPort);
      if (normalized.some((h) => h === null)) {
        ctx.addIssue({
          code: 'custom',
          message:
            'must be comma-separated host:port entries (e.g. 127.0.0.1:9100, hrms-sim:9100, [::1]:9100) without scheme, path or wildcard: an entry without a port would let every port of its host through',
        });
        return z.NEVER;
      }
      return normalized as string[];
    })
    .describe(
      "HRMS hosts on the operator's own network, comma-separated, each a host name or IP address spelled exactly as in the HRMS URL and its port (e.g. `hrms-sim:9100`, `127.0.0.1:9100`, `[::1]:9100`): a URL with one of these hosts on that port (the scheme's default port when the URL names none) may reach a private address, while every other host, and every other port of the same host, stays refused. An entry without a port is refused at start. Narrower than `HRX_HRMS_ALLOW_PRIVATE_HOSTS=1`; a sandbox's simulator needs only this.",
    ),
  HRX_HRMS_LIVE_WAIT_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(30_000)
    .default(3000)
    .describe(
      "Longest wait (ms) of a live read (`source=hrms`), and of setup-config's credential check, for room in the HRMS tenant's request budget, and a live read's longest wait before its one retry; past it the request is `503 Service temporarily unavailable` with `Retry-After`.",
    ),
  HRX_HRMS_MAX_RESPONSE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .default(64 * 1024 * 1024)
    .describe(
      'Largest HRMS response body read whole, in bytes after decompression; a larger answer fails that request (`bad_response`). Streamed answers (a Darwinbox dataset) have `HRX_HRMS_MAX_STREAMED_BYTES` instead.',
    ),
  HRX_HRMS_MAX_STREAMED_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(64 * 1024 * 1024 * 1024)
    .default(1024 * 1024 * 1024)
    .describe(
      'Largest HRMS response read as a stream (a Darwinbox dataset, read chunk by chunk with flat memory), in bytes after decompression; it only stops an answer that never ends. Default 1 GiB, about a million employees; a larger answer fails that request (`bad_response`).',
    ),
  HRX_COMMON_EMAIL_DOMAINS: z
    .string()
    .default(DEFAULT_COMMON_EMAIL_DOMAINS.join(','))
    .transform((s) =>
      s
        .split(',')
        .map((d) => d.trim().toLowerCase())
        .filter(Boolean),
    )
    .describe('Common (public) e-mail domains, comma-separated: an SDK token for an address there resolves the employer by `org_name`, not by domain.'),
  HRX_CONNECT_FRAME_ANCESTORS: z
    .string()
    .regex(/^[A-Za-z0-9 '*:/._-]+$/, 'must be CSP source expressions')
    .default("'none'")
    .describe("CSP `frame-ancestors` of the Connect page: `'none'` (it opens in its own window) or the vendor origins allowed to frame it, space-separated."),
  HRX_SMTP_URL: z
    .string()
    .url()
    .refine((v) => /^smtps?:\/\//.test(v), { message: 'must be an smtp:// or smtps:// URL' })
    .optional()
    .describe(
      "SMTP server of the Connect flow's e-mail code: `smtp://[user:pass@]host:port` (STARTTLS when offered) or `smtps://...` (TLS). Unset: no code can be sent, and a new org is set up only by the operator (`hrx connection approve`).",
    ),
  HRX_SMTP_FROM: z
    .string()
    .max(200)
    .regex(/^([^<>@\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, 'must be an e-mail address or Name <address>')
    .optional()
    .describe(
      "Sender of the Connect e-mails, `address` or `Name <address>`; required with HRX_SMTP_URL. Without HRX_OPERATOR_CONTACT, its address is the operator's contact on the Connect page.",
    ),
  HRX_OPERATOR_NAME: z.string().trim().min(1).max(120).default('the operator of this service').describe("The operator's name, shown on the Connect page."),
  HRX_OPERATOR_CONTACT: z
    .string()
    .trim()
    .max(300)
    .refine((v) => /^[^\s<>@]+@[^\s<>@]+$/.test(v) || /^https:\/\/[^\s<>"]+$/.test(v), { message: 'must be an e-mail address or an https:// URL' })
    .optional()
    .describe(
      'How to reach the operator, linked on every Connect page: an e-mail address or an https URL. Unset: the address of `HRX_SMTP_FROM` (mailto:), else the origin of `HRX_PUBLIC_URL`, else the origin the page was served from.',
    ),
  HRX_EVENTS_RETRY_SCHEDULE_MS: z
    .string()
    .default(DEFAULT_EVENTS_RETRY_SCHEDULE)
    .transform(parseSchedule)
    .describe('Delays (ms, comma-separated) between event delivery attempts; attempts = entries + 1.'),
  HRX_EVENTS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000).describe('Timeout (ms) of one event delivery request.'),
  HRX_EVENTS_ALLOW_HTTP_LOOPBACK: z
    .enum(['0', '1'])
    .default('0')
    .transform((v) => v === '1')
    .describe('`1` allows `http` event endpoint URLs on loopback hosts (local receivers, tests); otherwise https only.'),
  HRX_EVENTS_ALLOW_PRIVATE_HOSTS: z
    .enum(['0', '1'])
    .default('0')
    .transform((v) => v === '1')
    .describe(
      '`1` delivers events to endpoints on private, loopback, link-local and reserved addresses (implied by `HRX_EVENTS_ALLOW_HTTP_LOOPBACK=1`); otherwise refused at connection time.',
    ),
  HRX_EVENTS_CONSENT_SCAN_MS: z.coerce.number().int().min(100).default(60_000).describe('How often (ms) expired consents are looked for and announced.'),
  HRX_EVENTS_RELAY_MS: z.coerce.number().int().min(100).default(10_000).describe('How often (ms) the outbox relay queues deliveries no job carries.'),
  HRX_EVENTS_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(8).describe('Deliveries one events worker makes at once.'),
  HRX_AUDIT_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(0)
    .max(36_500)
    .default(400)
    .describe(
      'Days audit entries (`audit_log`, `connect_proof_audit`) are kept, and consent records after they ended once the employee is no longer held (the DPDP Rules 2025 ask for at least a year); 0 purges all that is past.',
    ),
  HRX_REMOVED_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(0)
    .max(36_500)
    .default(30)
    .describe('Days an employee a full sync no longer saw (removed) is kept before its row is purged.'),
  HRX_EVENT_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .min(0)
    .max(36_500)
    .default(30)
    .describe('Days an outbox event whose deliveries all ended (delivered, failed, cancelled) is kept, with its delivery attempts, before it is purged.'),
  HRX_RETENTION_PURGE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(7 * 86_400_000)
    .default(3_600_000)
    .describe('How often (ms) the retention purge job scheduler runs.'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('Log level of `hrx serve|worker|start` (JSON lines on stderr).'),
});

/** The validated configuration. */
export type Config = z.infer<typeof configSchema> & { masterKeys: { current: Buffer; retired: Buffer[] } | null };

/**
 * How the Connect page offers to reach the operator (docs/connect.md "Settings": every page has a way):
 * `HRX_OPERATOR_CONTACT`, else the address of `HRX_SMTP_FROM` (someone can answer mail sent
 * there), else the origin of `HRX_PUBLIC_URL` as the operator's site. Null when none is set (dev):
 * the page then links the origin it was served from.
 */
export function operatorContact(c: Pick<Config, 'HRX_OPERATOR_CONTACT' | 'HRX_SMTP_FROM' | 'HRX_PUBLIC_URL'>): string | null {
  if (c.HRX_OPERATOR_CONTACT) return c.HRX_OPERATOR_CONTACT;
  if (c.HRX_SMTP_FROM) return /<([^<>]+)>$/.exec(c.HRX_SMTP_FROM)?.[1] ?? c.HRX_SMTP_FROM;
  if (c.HRX_PUBLIC_URL) return new URL(c.HRX_PUBLIC_URL).origin;
  return null;
}

/**
 * The bound of one sync run (docs/settings.md): `HRX_SYNC_MAX_EMPLOYEES`, and `HRX_SYNC_MAX_PAGES`
 * or, unset, one page per 10 employees of that bound (per `HRX_SYNC_BATCH_SIZE` when smaller:
 * pages hold up to that many) plus 100 for short pages where a listing switches (active, then
 * inactive employees).
 */
export function syncBounds(c: Pick<Config, 'HRX_SYNC_MAX_EMPLOYEES' | 'HRX_SYNC_MAX_PAGES' | 'HRX_SYNC_BATCH_SIZE'>): {
  maxPages: number;
  maxEmployees: number;
} {
  const maxPages = c.HRX_SYNC_MAX_PAGES ?? Math.ceil(c.HRX_SYNC_MAX_EMPLOYEES / Math.min(c.HRX_SYNC_BATCH_SIZE, 10)) + 100;
  return { maxPages, maxEmployees: c.HRX_SYNC_MAX_EMPLOYEES };
}

/** A bad environment variable; the message names it but never shows its value. */
export class ConfigError extends Error {}

/**
 * Parses `env` (default `process.env`). `masterKeys` is null when `HRX_MASTER_KEY` is unset,
 * which is allowed only without `DATABASE_URL` (the embedded mode generates one, see db/embedded).
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = configSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`Invalid configuration: ${issue.path.join('.')} ${issue.message}`);
  }
  const c = parsed.data;
  if (c.DATABASE_URL && !c.HRX_MASTER_KEY) {
    throw new ConfigError('Invalid configuration: HRX_MASTER_KEY is required when DATABASE_URL is set');
  }
  if (c.HRX_SMTP_URL && !c.HRX_SMTP_FROM) {
    throw new ConfigError('Invalid configuration: HRX_SMTP_FROM is required when HRX_SMTP_URL is set');
  }
  const retired = c.HRX_MASTER_KEYS_RETIRED.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const k of retired) {
    if (Buffer.from(k, 'base64').length !== 32) throw new ConfigError('Invalid configuration: HRX_MASTER_KEYS_RETIRED entries must be 32 bytes, base64');
  }
  return {
    ...c,
    masterKeys: c.HRX_MASTER_KEY ? { current: Buffer.from(c.HRX_MASTER_KEY, 'base64'), retired: retired.map((k) => Buffer.from(k, 'base64')) } : null,
  };
}
