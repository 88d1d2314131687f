/**
 * The memory limit counts what a command keeps in its sandbox's private `/tmp` and `/dev/shm`,
 * never the host's: a process that has not moved into a root of its own (this one, or a sandbox
 * still being set up) counts 0, even though the host's `/tmp` is a disk of tens of GiB. Counting it
 * ended commands with the memory limit, at random, on a loaded machine.
 */
import { spawn } from 'node:child_process';
import { statfsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BubblewrapSandbox, sandboxTmpfsBytes } from '../../src/ports/bubblewrap-sandbox.js';

const support = await new BubblewrapSandbox().probe();
if (!support.available) console.warn(`skipping the sandbox half of the watchdog tmpfs test: ${support.cause}; ${support.fix}`);

describe("the watchdog's count of a sandbox's private /tmp", () => {
  it("counts nothing for a process in the host's root, however full the host's /tmp is", () => {
    const host = statfsSync('/tmp');
    expect((host.blocks - host.bfree) * host.bsize).toBeGreaterThan(0);
    expect(sandboxTmpfsBytes(process.pid)).toBe(0);
    expect(sandboxTmpfsBytes(null)).toBe(0);
  });

  it.skipIf(!support.available)(
    'counts what a sandboxed command writes into its own /tmp',
    async () => {
      const child = spawn(
        'bwrap',
        [
          '--unshare-all',
          '--die-with-parent',
          '--ro-bind',
          '/',
          '/',
          '--tmpfs',
          '/tmp',
          '--proc',
          '/proc',
          '--dev',
          '/dev',
          '--info-fd',
          '3',
          '--',
          'sh',
          '-c',
          'head -c 5000000 /dev/zero > /tmp/x && echo written && sleep 30',
        ],
        { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] },
      );
      try {
        const info = await new Promise<string>((resolve) => {
          let text = '';
          child.stdio[3]!.on('data', (c: Buffer) => {
            text += c.toString();
            if (/"child-pid"\s*:\s*\d+/.test(text)) resolve(text);
          });
        });
        const pid = Number(/"child-pid"\s*:\s*(\d+)/.exec(info)![1]);
        await new Promise<void>((resolve) => child.stdout!.on('data', (c: Buffer) => c.toString().includes('written') && resolve()));
        const counted = sandboxTmpfsBytes(pid);
        expect(counted).toBeGreaterThanOrEqual(5_000_000);
        expect(counted).toBeLessThan(1024 ** 3);
      } finally {
        child.kill('SIGKILL');
      }
    },
    60_000,
  );
});
