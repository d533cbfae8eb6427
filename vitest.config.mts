import { defineConfig } from 'vitest/config';

const integration = {
  globalSetup: ['test/helpers/global-setup.ts'],
  // Each file runs a Temporal worker and real servers; on two cores one file at a time is faster.
  fileParallelism: false,
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          ...integration,
        },
      },
      // Only with RECORD_HISTORIES=1 (npm run record:histories): rewrites the replay fixtures.
      ...(process.env.RECORD_HISTORIES === '1'
        ? [{ test: { name: 'record', include: ['test/record/**/*.record.ts'], ...integration } }]
        : []),
    ],
  },
});
