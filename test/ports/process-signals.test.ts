/**
 * The signal port: `onSignals` installs one handler per signal, calls the listener with the
 * signal's name, and its removal takes every handler away again; the two probes answer for a
 * live pid, a pid that has exited, and a pid Node refuses.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isPidGone, onSignals, pidExists } from '../../src/ports/process-signals.js';
import { ownPid } from '../../src/ports/own-process.js';

describe('onSignals', () => {
  it("calls the listener with each signal's name, and the removal takes every handler away", () => {
    const before = ['SIGHUP', 'SIGUSR2'].map((s) => process.listenerCount(s));
    const heard: string[] = [];
    const remove = onSignals(['SIGHUP', 'SIGUSR2'], (signal) => heard.push(signal));
    expect(['SIGHUP', 'SIGUSR2'].map((s) => process.listenerCount(s))).toEqual(before.map((n) => n + 1));
    process.emit('SIGUSR2', 'SIGUSR2');
    process.emit('SIGHUP', 'SIGHUP');
    expect(heard).toEqual(['SIGUSR2', 'SIGHUP']);
    remove();
    expect(['SIGHUP', 'SIGUSR2'].map((s) => process.listenerCount(s))).toEqual(before);
  });
});

describe('pidExists and isPidGone', () => {
  it('this process exists and is not gone', () => {
    expect(pidExists(ownPid())).toBe(true);
    expect(isPidGone(ownPid())).toBe(false);
  });

  it('a process that has exited does not exist and is gone', () => {
    const child = spawnSync(process.execPath, ['-e', '0']);
    expect(pidExists(child.pid!)).toBe(false);
    expect(isPidGone(child.pid!)).toBe(true);
  });

  it('a pid Node refuses (past 32 bits) neither exists nor counts as gone: the safe side for a take-over', () => {
    expect(pidExists(2 ** 40)).toBe(false);
    expect(isPidGone(2 ** 40)).toBe(false);
  });
});
