// `node --import ./scripts/run-typescript.mjs file.ts`: registers scripts/typescript-hooks.mjs,
// which runs the project's TypeScript sources without a build (see there).
import { register } from 'node:module';

register('./typescript-hooks.mjs', import.meta.url);
