// Jest setupFiles of the `postgresql` project: makeTestRuntime builds its runtime on PostgreSQL.
process.env.AQ_TEST_DATABASE = 'postgresql';
