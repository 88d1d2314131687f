/**
 * The process-liveness port: on this machine a process is its pid plus its start time (field 22
 * of /proc/<pid>/stat, with the boot id), so a process that exited, or a pid recorded with
 * another start time (a recycled pid), is not alive; the stat line is parsed after the last
 * `)` whatever the command name holds. `ManualLiveness` is the deterministic twin.
 */
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { nodeProcessLiveness, processStart, startTicksOf } from '../../src/ports/node-process-liveness.js';
import { ManualLiveness } from '../../src/ports/process-liveness.js';

describe('nodeProcessLiveness', () => {
  it('names this process by pid and start time, and finds it alive', () => {
    const self = nodeProcessLiveness.self;
    expect(self.pid).toBe(process.pid);
    expect(self.start).toMatch(/^[0-9a-f-]+:\d+$/);
    expect(nodeProcessLiveness.isAlive(self)).toBe(true);
  });

  it('a process that has exited is not alive, with or without its start time', () => {
    const child = spawnSync(process.execPath, ['-e', '0']);
    expect(nodeProcessLiveness.isAlive({ pid: child.pid!, start: null })).toBe(false);
    expect(nodeProcessLiveness.isAlive({ pid: child.pid!, start: nodeProcessLiveness.self.start })).toBe(false);
  });

  it('a running process recorded with another start time (a recycled pid) is not alive', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 5000)'], { stdio: 'ignore' });
    try {
      const start = processStart(child.pid!);
      expect(start).not.toBeNull();
      expect(nodeProcessLiveness.isAlive({ pid: child.pid!, start })).toBe(true);
      expect(nodeProcessLiveness.isAlive({ pid: child.pid!, start: `${start}0` })).toBe(false);
      expect(nodeProcessLiveness.isAlive({ pid: child.pid!, start: null })).toBe(true);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('refuses pids that are not positive integers (kill(0) would mean the process group)', () => {
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(nodeProcessLiveness.isAlive({ pid, start: null })).toBe(false);
  });

  it('reads field 22 after the last parenthesis, whatever the command name holds', () => {
    const rest = 'S 1 2 3 0 -1 4194304 100 0 0 0 8 3 0 0 20 0 7 0 191085 745713664 10090';
    expect(startTicksOf(`123 (node) ${rest}`)).toBe('191085');
    expect(startTicksOf(`123 (a) (b c) ) ${rest}`)).toBe('191085');
    expect(startTicksOf('123 (no closing paren 1 2 3')).toBeNull();
    expect(startTicksOf('123 (short) S 1 2')).toBeNull();
  });
});

describe('ManualLiveness', () => {
  it('everything is alive until killed; a restart makes the earlier incarnation a dead process', () => {
    const l = new ManualLiveness(7);
    const first = l.self;
    expect(l.isAlive(first)).toBe(true);
    expect(l.isAlive({ pid: 99, start: 'x' })).toBe(true);
    l.restart();
    expect(l.isAlive(first)).toBe(false);
    expect(l.isAlive(l.self)).toBe(true);
    l.kill(99);
    expect(l.isAlive({ pid: 99, start: null })).toBe(false);
  });
});
