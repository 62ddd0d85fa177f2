/**
 * Tells every hrx process that an API key was revoked (docs/behaviour.md "Secrets": a revoked key stops working in
 * every process within 1 s), over a Redis pub/sub channel like connections/access-cache.ts.
 * The process revoking (often the `hrx apikey revoke` CLI) publishes the key id; every API
 * process's authenticator drops that key from its cache when the message arrives. The
 * authenticator's cache TTL (1 s) bounds staleness should a message be lost.
 *
 * The subscriber connection is opened only when something listens (an API process), so CLI
 * commands and workers hold no extra Redis connection.
 */
import type { RedisClient } from '../redis';

export interface RevocationFeed {
  /** Announces the revocation of `keyId` to every process (and this one's listeners at once). */
  publish(keyId: string): Promise<void>;
  /** Calls `listener` with each revoked key id from now on. */
  subscribe(listener: (keyId: string) => void): void;
  close(): Promise<void>;
}

/** Builds the feed; `subscriber` makes the connection that enters subscriber mode, on first `subscribe`. */
export function createRevocationFeed(opts: { publisher: RedisClient; subscriber: () => RedisClient; channel: string }): RevocationFeed {
  const listeners: ((keyId: string) => void)[] = [];
  let sub: RedisClient | undefined;
  let subscribed: Promise<unknown> = Promise.resolve();
  const deliver = (keyId: string): void => {
    for (const l of listeners) l(keyId);
  };
  return {
    async publish(keyId) {
      deliver(keyId);
      // Bounded: with Redis down the revocation is already committed, and the other processes'
      // caches expire within their TTL; the caller must not hang on the announcement.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        opts.publisher.publish(opts.channel, keyId),
        new Promise((resolve) => {
          timer = setTimeout(resolve, 2000);
        }),
      ])
        .catch(() => undefined)
        .finally(() => clearTimeout(timer));
    },
    subscribe(listener) {
      listeners.push(listener);
      if (sub) return;
      sub = opts.subscriber();
      sub.on('error', () => undefined);
      sub.on('message', (channel: string, message: string) => {
        if (channel === opts.channel) deliver(message);
      });
      subscribed = sub.subscribe(opts.channel).catch(() => undefined);
    },
    async close() {
      await subscribed;
      sub?.disconnect();
    },
  };
}
