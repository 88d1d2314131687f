// Makes the CLI entry executable. (Every module, the worker pool's programs included, is
// TypeScript compiled by tsc into dist/: nothing else needs copying.)
import { chmodSync, existsSync } from 'node:fs';

const bin = 'dist/src/cli/main.js';
if (existsSync(bin)) chmodSync(bin, 0o755);
