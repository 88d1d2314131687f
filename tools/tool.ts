/**
 * What a tool is: a TypeBox input schema (the single source of the input type, compiled once),
 * an output schema, a description for a model, MCP annotations, what the gate must check before
 * it runs (the paths to resolve, whether it writes) and a handler.
 *
 * The gate (`src/gate/tool-gate.ts`) runs every tool the same way; a new tool (request_files)
 * is one more file exporting a `ToolDefinition`, its handler reading what it needs from its
 * `ToolContext`, which offers only ports declared in tools/ or vfs/.
 */
import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { compileInput, type InputCheck } from './input-check.js';
import type { Namespace } from '../vfs/index.js';
import type { Resolved } from '../vfs/index.js';
import type { DisclosureRequests } from './disclosure-requests.js';
import type { WorkRequests } from './work-requests.js';
import type { CommandRequests } from './command-requests.js';
import type { SnapshotRequests } from './snapshot-requests.js';
import type { HandoffRequests } from './handoff-requests.js';
import type { BindingRequests } from './binding-requests.js';
import type { DescribeRequest } from './execution-snapshot.js';
import { PatternError } from './patterns/index.js';
import { ToolFailure, type ToolDescriptor, type ToolResult } from './result.js';

/** What a handler receives besides its validated input. */
export interface ToolContext {
  readonly conversation: string;
  /** The workspace's progressive disclosure (`Registration.disclosure`), when it has one. */
  readonly disclosure?: DisclosureRequests;
  /** The way home for the workspace's work (`Registration.work`), when it can carry work. */
  readonly work?: WorkRequests;
  /** The conversation's commands in its sandbox (`Registration.commands`), when its role declares a command tool. */
  readonly commands?: CommandRequests;
  /** The conversation's own snapshots (`Registration.snapshots`), when its workspace takes them. */
  readonly snapshots?: SnapshotRequests;
  /** The conversation's `handoff` and `end` (`Registration.handoffs`), when its role declares one. */
  readonly handoffs?: HandoffRequests;
  /** The conversation's `attach`, `detach` and `switch` (`Registration.bindings`). */
  readonly bindings?: BindingRequests;
  /** The conversation's execution snapshot (`Registration.describe`), for `whereami`. */
  readonly describe?: DescribeRequest;
  /** The conversation's namespace: every file access goes through it. */
  readonly namespace: Namespace;
  /** The input's paths (from `ToolDefinition.paths`), resolved by the gate, same order. */
  readonly resolved: readonly Resolved[];
  /** The occupancy holder making the call, when known. */
  readonly holder?: string;
  /** The caller's conversation chain, parents first. */
  readonly chain?: readonly string[];
}

/** A tool as the gate runs it. `I` is the validated input, `O` the value of a success. */
// biome-ignore lint/suspicious/noExplicitAny: the gate's tool table holds tools of every input and output type; each tool's own types are checked through its schema
export interface ToolDefinition<I = any, O = any> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: TObject;
  /** The value's schema: an object, or a union of objects (read: text or image) marked `type: 'object'`. */
  readonly outputSchema: TSchema;
  readonly annotations: ToolDescriptor['annotations'];
  /** True when the tool changes files: the gate checks write flags, protected paths, occupancy and takes the file lock. */
  readonly writes: boolean;
  /**
   * The namespace paths in the input that the gate resolves (step 4) before running, following
   * their links beneath their mounts (vfs/namespace.ts `resolveLinks`).
   */
  paths(input: I): string[];
  /**
   * True when the tool acts on a link at the end of its paths itself (delete, move): links on
   * the way are followed, a final one is not. Absent: the final link is followed too.
   */
  readonly keepsFinalLink?: boolean;
  /**
   * The paths (among `paths`) whose entries the tool takes away (delete's path, move's from):
   * before anything, the gate also refuses one holding an authority file or another mount
   * (`Namespace.checkRemovable`). Absent: none.
   */
  removedPaths?(input: I): string[];
  /**
   * True when this call writes back what it read (a compare-and-swap: `edit`, `write` with an
   * `expectedSha256` string): the gate then also holds the cross-process lock of each host
   * file (src/ports/cross-process-locks.ts). Absent: never.
   */
  compareAndSwap?(input: I): boolean;
  /** Runs the tool. May return a failure or throw `VfsError` / `ToolFailure`; anything else becomes `INTERNAL`. */
  handler(input: I, ctx: ToolContext): Promise<ToolResult<O>>;
  /**
   * Validates unknown arguments against the compiled input schema: the value, or the first
   * problem as a message naming the field, the fields taken and the closest one, and as data
   * (`InputProblem`, the `details` of `INVALID_INPUT`).
   */
  validate(args: unknown): InputCheck<I>;
  /** The MCP-ready descriptor (plain JSON Schemas, no TypeBox symbols). */
  readonly descriptor: ToolDescriptor;
}

/** What a tool file passes to `defineTool`: its schemas, texts, gate checks and handler. */
interface ToolSpec<S extends TObject, O> {
  name: string;
  description: string;
  input: S;
  output: TSchema;
  annotations: ToolDescriptor['annotations'];
  writes: boolean;
  paths(input: Static<S>): string[];
  keepsFinalLink?: boolean;
  removedPaths?(input: Static<S>): string[];
  compareAndSwap?(input: Static<S>): boolean;
  handler(input: Static<S>, ctx: ToolContext): Promise<ToolResult<O>>;
}

/**
 * Builds a `ToolDefinition` from a spec: compiles the input schema once and derives the MCP
 * descriptor. The handler's pattern refusals (`PatternError` of tools/patterns/) leave it as the
 * `ToolFailure` they stand for (`INVALID_INPUT`, same message). Throws (at module load, never
 * during a call) when the input schema is not an object schema refusing extra properties.
 */
export function defineTool<S extends TObject, O>(spec: ToolSpec<S, O>): ToolDefinition<Static<S>, O> {
  if (spec.input.additionalProperties !== false) {
    throw new Error(`tool ${spec.name}: the input schema must set additionalProperties: false`);
  }
  const validate = compileInput<Static<S>>(spec.input, spec.name);
  return {
    name: spec.name,
    description: spec.description,
    inputSchema: spec.input,
    outputSchema: spec.output,
    annotations: spec.annotations,
    writes: spec.writes,
    paths: spec.paths,
    ...(spec.keepsFinalLink ? { keepsFinalLink: true } : {}),
    ...(spec.removedPaths ? { removedPaths: spec.removedPaths } : {}),
    ...(spec.compareAndSwap ? { compareAndSwap: spec.compareAndSwap } : {}),
    handler: answeringPatternErrors(spec.handler),
    validate,
    descriptor: {
      name: spec.name,
      description: spec.description,
      inputSchema: plainJsonSchema(spec.input),
      outputSchema: plainJsonSchema(spec.output),
      annotations: spec.annotations,
    },
  };
}

type Handler<I, O> = (input: I, ctx: ToolContext) => Promise<ToolResult<O>>;

/**
 * `handler`, with a `PatternError` it throws turned into the `ToolFailure` the gate answers
 * (`INVALID_INPUT`, the same message, no path): the pattern engine knows no tool result.
 */
function answeringPatternErrors<I, O>(handler: Handler<I, O>): Handler<I, O> {
  return async (input, ctx) => {
    try {
      return await handler(input, ctx);
    } catch (e) {
      if (e instanceof PatternError) throw new ToolFailure(e.code, e.message);
      throw e;
    }
  };
}

/** A TypeBox schema as a plain JSON Schema object (TypeBox's symbol keys removed). */
export function plainJsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

export { compileInput, type InputCheck, type InputProblem } from './input-check.js';
