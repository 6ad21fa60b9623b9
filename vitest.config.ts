import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // e2e files each start their own gate and local chain processes; two cores, so keep it modest.
    maxWorkers: 2,
    pool: 'forks',
    // CI also writes a JSON report, from which .ci/run prints the "N passed, N failed" line.
    reporters: process.env.CI ? ['default', ['json', { outputFile: '.ci/vitest-report.json' }]] : ['default'],
  },
});
