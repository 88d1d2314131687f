/**
 * `WriteDoor`: the door every gated write of a workspace passes through, in every process over
 * one state directory, and that a release shuts before it looks for work (docs/ARCHITECTURE.md
 * § Trust boundary, "Lifecycle": no write may land between a release's check and its removal).
 *
 * A writer enters before the gate asks who occupies the workspace and leaves when its handler
 * is done; a release takes the workspace's occupancy first and then shuts the door, which waits
 * for every writer inside — in this process or any other — to leave. So a write either passed
 * the occupancy check before the release took it and is waited for (the release then sees its
 * bytes), or it meets the shut door or the release's occupancy and is refused (`OCCUPIED`).
 * Occupancy alone cannot do this: a write in another process that passed the check a moment
 * before the release took the workspace could land after the release's check and be deleted
 * with the folder while its caller was told ok.
 *
 * The production implementation is src/ports/write-door-dir.ts (kernel record locks, dropped
 * when their process dies); the memory host has none: its calls are all in one process, where
 * the host's call tracker drains them.
 */

/** A writer inside the door. */
export interface WritePass {
  /** Leaves the door. Idempotent; never throws. */
  leave(): void;
}

/** Why a writer could not enter. */
export type DoorRefusal =
  /** a release holds the workspace (the gate answers `OCCUPIED`) */
  | 'shut'
  /** out of file descriptors (the gate answers `BUSY`, retry) */
  | 'unavailable';

/** The writers' side (what the gate needs). */
export interface WriteDoor {
  /** Enters `conversation`'s door without waiting. Result: the pass, or why not. Throws only for an unexpected failure. */
  enter(conversation: string): WritePass | DoorRefusal;
}

/** A door a release holds shut. */
export interface ShutDoor {
  /** Opens the door again. Idempotent; never throws. */
  open(): void;
}

/** Both sides: the host's release shuts, the gate enters. */
export interface WriteDoors extends WriteDoor {
  /**
   * Shuts `conversation`'s door once every writer inside has left, waiting up to `waitMs`.
   * Result: the shut door, or null when writers were still inside at the bound (the release
   * then answers `BUSY` and changes nothing) or out of descriptors.
   */
  shut(conversation: string): Promise<ShutDoor | null>;
  /** How long `shut` waits, in milliseconds (for messages). */
  readonly shutWaitMs: number;
}
