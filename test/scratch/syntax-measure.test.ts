import { it } from 'vitest';
import { introducedSyntaxErrors } from '../../tools/syntax-check.js';
import { readFileSync } from 'node:fs';
it('measure', async () => {
  const cases: [string, string][] = [
    ['x.js', 'x = 1;\n'.repeat(120_000)],
    ['g.ts', '(('.repeat(200_000)],
    ['t.ts', readFileSync('node_modules/typescript/lib/typescript.js', 'utf8').slice(0, 1_000_000)],
    ['s.ts', readFileSync('tools/edit.ts', 'utf8')],
  ];
  for (const [p, t] of cases) {
    let worst = 0; let last = performance.now();
    const timer = setInterval(() => { const n = performance.now(); worst = Math.max(worst, n - last); last = n; }, 1);
    const t0 = performance.now();
    const r = await introducedSyntaxErrors(p, undefined, t);
    clearInterval(timer);
    console.log(p, t.length, (performance.now() - t0).toFixed(0), 'ms; worst gap', worst.toFixed(1), JSON.stringify(r).slice(0, 150));
  }
}, 60000);
