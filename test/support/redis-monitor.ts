/**
 * Counts the Lua script calls a test's code makes on a Redis (the shared one by default),
 * through `MONITOR` (which sees every command of every client): only calls (EVAL / EVALSHA, not
 * the commands the scripts run) whose arguments contain `marker` (a test's own key prefix, e.g.
 * `<prefix>:authfail:`) count, so other tests and helpers on the same Redis do not.
 *
 * MONITOR is read on a plain socket: ioredis's monitor mode can mistake the first lines of a busy
 * server's feed for replies ("Command queue state error").
 */
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { REDIS_URL, waitFor } from './harness';

export interface ScriptMonitor {
  /** Forgets the calls made so far (once every command sent before this call was seen). */
  reset(): Promise<void>;
  /** The calls seen since the last `reset`, once every command sent before this call was seen. */
  count(): Promise<number>;
  close(): void;
}

/** Starts monitoring the Redis at `url`; resolves once `MONITOR` is on. */
export async function monitorScripts(marker: string, url = REDIS_URL): Promise<ScriptMonitor> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port || 6379), hostname || '127.0.0.1');
  socket.on('error', () => undefined);
  const client = new Redis(url);
  let calls = 0;
  let on = false;
  const fences = new Set<string>();
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\r\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 2);
      if (line === '+OK') on = true;
      // +<time> [<db> <source>] "<command>" "<arg>" …
      const m = /^\+\S+ \[\d+ (\S+)\] (.*)$/.exec(line);
      if (!m) continue;
      const args = [...m[2]!.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((a) => a[1]!);
      const name = (args[0] ?? '').toLowerCase();
      if (name === 'get' && args[1]?.startsWith('hrxtest:fence:')) fences.delete(args[1]);
      else if ((name === 'evalsha' || name === 'eval') && m[1] !== 'lua' && args.some((a) => a.includes(marker))) calls++;
    }
  });
  socket.write('MONITOR\r\n');
  await waitFor(() => on, 5000, 5);
  // MONITOR reports commands in the order Redis ran them: once a fence sent now is seen, every
  // call made before it has been counted.
  async function fence(): Promise<void> {
    const key = `hrxtest:fence:${randomUUID()}`;
    fences.add(key);
    await client.get(key);
    await waitFor(() => !fences.has(key), 5000, 5);
  }
  return {
    async reset() {
      await fence();
      calls = 0;
    },
    async count() {
      await fence();
      return calls;
    },
    close() {
      socket.destroy();
      client.disconnect();
    },
  };
}
