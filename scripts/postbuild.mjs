// Makes the CLI entry executable and copies plain .js assets (worker scripts) next to the compiled code.
import { chmodSync, cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const bin = 'dist/src/cli/main.js';
if (existsSync(bin)) chmodSync(bin, 0o755);

function copyJs(dir) {
  for (const name of readdirSync(dir)) {
    const from = join(dir, name);
    if (statSync(from).isDirectory()) copyJs(from);
    else if (name.endsWith('.js') || name.endsWith('.cjs')) cpSync(from, join('dist', from));
  }
}
for (const dir of ['vfs', 'tools', 'src']) if (existsSync(dir)) copyJs(dir);
