import { remoteSuite } from './helpers/remoteSuite.js';

remoteSuite('file');
