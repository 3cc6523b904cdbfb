/** The test suite's own PostgreSQL (see bench/postgres.ts, which the benchmarks share). */
export { startPostgres, type TestPostgres } from '../../bench/postgres.js';
