import { it } from 'vitest';
import { createHost } from '../../src/host/create-host.js';
import { makeTempRepo } from '../host/temp-repo.js';
it('dbg', async () => {
  const repo = makeTempRepo({ 'README.md': '# r\n', 'lib/x.ts': 'x\n' });
  const host = await createHost({ repo: repo.dir, manifest: { roles: [{ name: 'agent', tools: ['read', 'write', 'delete', 'list'], workspace: { backend: 'worktree' } }] }, settings: { lander: { checks: [] } } });
  await host.prepare({ conversation: 'a' });
  console.log(JSON.stringify(await host.gate.call('a', 'delete', { path: 'lib/x.ts' })));
  console.log(JSON.stringify(await host.gate.call('a', 'delete', { path: 'lib' })));
  console.log(JSON.stringify(await host.gate.call('a', 'write', { path: 'lib', content: 'f\n' })));
  await host.close(); repo.cleanup();
});
