/**
 * `PatternError`: the one refusal of the pattern engine (tools/patterns/): a glob it will not
 * compile (a leading '/', an extglob that repeats or negates, an unknown `[:class:]`, braces
 * expanding past their caps), `.gitignore` rules past the caps a call may hold, or matching past
 * the call's step budget.
 *
 * Its `code` is always `INVALID_INPUT`, the tool code the refusal becomes unchanged
 * (`defineTool`, tools/tool.ts); `data.field` names the argument at fault (`pattern`, `glob`,
 * `path`) and the message starts with it. Like ripgrep's globset and ignore crates, which carry
 * their own error type, the engine knows no tool, layer or host: this error's base
 * (`CodedError`) is all it imports of gatefs.
 */
import { CodedError } from '../../vfs/coded-error.js';

/** A glob or `.gitignore` refusal; `message` is `<field>: <problem>`, written for the agent. */
export class PatternError extends CodedError<'INVALID_INPUT', { readonly field: string }> {
  override readonly name = 'PatternError';

  /** `field`: the argument at fault; `problem`: what is wrong and what to do instead. */
  constructor(field: string, problem: string) {
    super('INVALID_INPUT', `${field}: ${problem}`, { field });
  }

  /** The argument at fault, as the tool names it. */
  get field(): string {
    return this.data.field;
  }
}
