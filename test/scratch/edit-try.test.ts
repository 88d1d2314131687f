import { it } from 'vitest';
import { addWorkspace, setupGate } from '../tools/workspace-fixture.js';
it('try', async () => {
  const s = setupGate();
  addWorkspace(s, 'a', { files: {
    'a.ts': 'function f() {\n\tconst a = 1;  \n\treturn a;\n}\n\nexport const x = f();\n',
    'b.txt': Array.from({length: 30}, (_, i) => `line ${i+1}`).join('\n') + '\n',
  } });
  const show = (r: any) => console.log(JSON.stringify(r, null, 1));
  show(await s.gate.call('a', 'edit', { path: 'a.ts', oldString: 'function f() {\n    const a = 1;\n    return a;', newString: 'x' }));
  show(await s.gate.call('a', 'edit', { path: 'a.ts', oldString: 'const b = 1;\n\treturn a;', newString: 'x' }));
  show(await s.gate.call('a', 'edit', { path: 'a.ts', oldString: 'return a;', newString: 'return a +;' }));
  const r: any = await s.gate.call('a', 'edit', { path: 'b.txt', edits: [{oldString: 'line 3\n', newString: 'three\nTHREE\n'}, {oldString: 'line 20', newString: 'twenty'}, {oldString: 'line 22\n', newString: ''}], dryRun: true });
  console.log(r.value.diff); console.log(r.value.snippet);
});
