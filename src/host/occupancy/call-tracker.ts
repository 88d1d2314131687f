/**
 * `CallTracker`: the host's face of the tool gate, counting the calls in flight per
 * conversation so a release can wait for them (`drain`) after it has taken the workspace out
 * of service. The inner gate is called synchronously, so its checks up to the first `await`
 * (registration, occupancy) run at the moment of the call: a write that starts after the
 * release holder took the workspace is refused, and one that started before is waited for.
 */
import type { CallContext, ToolGateApi } from '../../gate/index.js';
import type { ToolDescriptor, ToolResult } from '../../../tools/index.js';

interface Running {
  count: number;
  idle: Promise<void>;
  resolve: () => void;
}

/** A `ToolGateApi` that tracks calls in flight per conversation (see the file comment). */
export class CallTracker implements ToolGateApi {
  private readonly running = new Map<string, Running>();

  constructor(private readonly inner: ToolGateApi) {}

  call(conversation: string, tool: string, args: unknown, context?: CallContext): Promise<ToolResult> {
    const key = typeof conversation === 'string' ? conversation : '';
    let entry = this.running.get(key);
    if (!entry) {
      let resolve!: () => void;
      const idle = new Promise<void>((r) => (resolve = r));
      entry = { count: 0, idle, resolve };
      this.running.set(key, entry);
    }
    entry.count++;
    const done = entry;
    const leave = () => {
      if (--done.count === 0) {
        if (this.running.get(key) === done) this.running.delete(key);
        done.resolve();
      }
    };
    let pending: Promise<ToolResult>;
    try {
      pending = this.inner.call(conversation, tool, args, context);
    } catch (e) {
      leave();
      throw e;
    }
    return pending.finally(leave);
  }

  tools(conversation: string): ToolDescriptor[] {
    return this.inner.tools(conversation);
  }

  /** Resolves once no call of `conversation` is in flight (at once when none is). */
  drain(conversation: string): Promise<void> {
    return this.running.get(conversation)?.idle ?? Promise.resolve();
  }
}
