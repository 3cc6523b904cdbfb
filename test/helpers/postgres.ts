/** The test suite's own PostgreSQL (see src/bench/postgres.ts, which the benchmarks share). */
export { startPostgres, type TestPostgres } from '../../src/bench/postgres.js';
