/**
 * This process's copy of the keys at the failed-authentication limit (ratelimit/auth-failures.ts),
 * so that a check of keys none of which is locked costs no Redis call (the API-key hot path; a
 * success must cost nothing of the limit, bench/auth-failures.ts).
 *
 * Fed three ways: the failure scripts answer the keys they locked (this process knows at once);
 * every process hears the others' locks on a Redis pub/sub channel (published by the same script,
 * atomically with the count); and on each (re)subscription the copy is reloaded from a Redis
 * sorted set of the locks in force (member: the key, score: the end of its window, ms since the
 * epoch by the Redis server's clock), so locks made while this process was not listening are
 * not missed.
 *
 * The copy is `current` only between a subscription and the loss of its connection: a message
 * can be missed only while not subscribed, and then every check asks Redis as before. Entries
 * are never removed early, only when their window has passed: a key unlocked sooner (a refund,
 * an operator deleting it) costs one Redis check per attempt until then, never a missed lock.
 */
import type { RedisClient } from '../redis';

/** What the scripts of auth-failures.ts need to keep the shared part in step. */
export interface LockNames {
  /** What precedes a counter's key in Redis: `<prefix>:authfail:{authfail}:`. */
  keyPrefix: string;
  /** The sorted set of locks in force: `<prefix>:authfail-locks:{authfail}`. */
  set: string;
  /** The channel each new lock is announced on (`<key> <ms left>`): `<prefix>:authfail-locked`. */
  channel: string;
}

/**
 * The Redis names of the locks under `prefix` (`HRX_REDIS_PREFIX`). The counters and the set share
 * the hash tag `{authfail}`: a failure script touches the set and up to 500 counters at once, which
 * a Redis Cluster runs only within one slot (docs/operations.md "Redis Cluster"). A channel is no
 * key (no slot).
 */
export function lockNames(prefix: string): LockNames {
  return { keyPrefix: `${prefix}:authfail:{authfail}:`, set: `${prefix}:authfail-locks:{authfail}`, channel: `${prefix}:authfail-locked` };
}

/**
 * Lua lines recording that `key` (a full Redis key whose count is now `n`) reached the limit:
 * the lock goes into the set `locks` (`KEYS[1]` of the calling script) and on `channel` (an ARGV),
 * and its window (ms) is appended to `out`. Expects locals `limit`, `locks`, `channel`, `out`.
 */
export const LOCK_LUA = `
local function lock(key, n)
  if n < limit then return end
  local ttl = redis.call('PTTL', key)
  if ttl <= 0 then return end
  out[#out + 1] = key
  out[#out + 1] = ttl
  if n ~= limit then return end
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZREMRANGEBYSCORE', locks, '-inf', now)
  redis.call('ZADD', locks, now + ttl, key)
  redis.call('PUBLISH', channel, key .. ' ' .. ttl)
end
`;

/** KEYS[1]: the set of locks. Answers a flat array: key₁, ms left₁, key₂, … of the locks in force. */
const LOAD_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
local rows = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf', 'WITHSCORES')
for i = 1, #rows, 2 do
  out[#out + 1] = rows[i]
  out[#out + 1] = tonumber(rows[i + 1]) - now
end
return out
`;

/**
 * The per-process copy of the locks. Keys are the counter's own (`src:…`, `apikey:…`), without
 * the Redis prefix that the scripts, the channel and the set use.
 */
export interface LockedKeys {
  /** Whether the copy holds every lock in force (subscribed and loaded since). Starts listening on first call. */
  current(): boolean;
  /** Whether one of `keys` is locked by what this process knows. */
  anyLocked(keys: readonly string[]): boolean;
  /** Records a lock of `key` for `ms`. */
  add(key: string, ms: number): void;
  /** Records the locks of a script's answer (full key₁, ms₁, full key₂, ms₂, …); ignores anything else. */
  addAll(flat: unknown): void;
  close(): Promise<void>;
}

/** How long to wait before retrying a failed load of the set. */
const RELOAD_AFTER_MS = 1000;

/**
 * Builds the copy. `subscriber` makes the connection that enters subscriber mode (opened on the
 * first `current()`, so processes that never check hold no extra connection); `redis` loads the
 * set.
 */
export function createLockedKeys(deps: { redis: RedisClient; subscriber: () => RedisClient; names: LockNames }): LockedKeys {
  const { names } = deps;
  // Key → end of its lock (Date.now() ms).
  const locks = new Map<string, number>();
  let sub: RedisClient | undefined;
  let isCurrent = false;
  // Bumped at each loss of the subscription, so a load begun before it cannot make the copy current.
  let epoch = 0;
  let retry: NodeJS.Timeout | undefined;
  let closed = false;

  function add(key: string, ms: number): void {
    const now = Date.now();
    if (!(ms > 0)) return;
    if (locks.size > 50_000) for (const [k, until] of locks) if (until <= now) locks.delete(k);
    const until = now + ms;
    if ((locks.get(key) ?? 0) < until) locks.set(key, until);
  }

  /** Records the lock of `full` (a key in Redis) for `ms`; ignores keys of another prefix. */
  function addFull(full: unknown, ms: number): void {
    if (typeof full === 'string' && full.startsWith(names.keyPrefix)) add(full.slice(names.keyPrefix.length), ms);
  }

  function addAll(flat: unknown): void {
    if (!Array.isArray(flat)) return;
    for (let i = 0; i + 1 < flat.length; i += 2) addFull(flat[i], Number(flat[i + 1]));
  }

  async function resync(): Promise<void> {
    const mine = epoch;
    clearTimeout(retry);
    try {
      await sub!.subscribe(names.channel);
      const rows = await deps.redis.eval(LOAD_LUA, 1, names.set);
      if (mine !== epoch || closed) return;
      locks.clear();
      addAll(rows);
      isCurrent = true;
    } catch {
      // Not current until a load succeeds: checks ask Redis meanwhile.
      if (mine === epoch && !closed) retry = setTimeout(() => void resync(), RELOAD_AFTER_MS).unref();
    }
  }

  function listen(): void {
    sub = deps.subscriber();
    sub.on('error', () => undefined);
    sub.on('message', (channel: string, message: string) => {
      if (channel !== names.channel) return;
      const i = message.lastIndexOf(' ');
      if (i > 0) addFull(message.slice(0, i), Number(message.slice(i + 1)));
    });
    sub.on('close', () => {
      isCurrent = false;
      epoch++;
    });
    sub.on('ready', () => void resync());
    if (sub.status === 'ready') void resync();
  }

  return {
    current() {
      if (!sub && !closed) listen();
      return isCurrent;
    },
    anyLocked(keys) {
      let now = 0;
      for (const k of keys) {
        const until = locks.get(k);
        if (until === undefined) continue;
        now ||= Date.now();
        if (until > now) return true;
        locks.delete(k);
      }
      return false;
    },
    add,
    addAll,
    close() {
      closed = true;
      isCurrent = false;
      clearTimeout(retry);
      // A throw of disconnect() rejects, as the async close it replaces did.
      return new Promise<void>((resolve) => {
        sub?.disconnect();
        resolve();
      });
    },
  };
}
