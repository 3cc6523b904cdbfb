/** The remote tests of remote.test.ts, unchanged, against a serve on PostgreSQL (its own server). */
import { remoteSuite } from './helpers/remoteSuite.js';

remoteSuite('postgres');
