import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // e2e files each start their own gate and local chain processes; two cores, so keep it modest.
    maxWorkers: 2,
    pool: 'forks',
  },
});
