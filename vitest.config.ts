import { defineConfig } from 'vitest/config';

/**
 * Unit tests (`*.unit.test.ts`) need nothing running; integration tests
 * (`*.integration.test.ts`) use the PostgreSQL and Redis named by DATABASE_URL / REDIS_URL
 * (defaults: the machine's 127.0.0.1 services), each test file on a fresh schema of its own.
 */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
  },
});
