/**
 * Who this process is to the operating system: its pid and its user id. Only this file and the
 * other host ports name the global `process` (STYLE.md 4). The liveness port
 * (`node-process-liveness.ts`) adds the start time that tells a reused pid apart.
 */

/** This process's id (`process.pid`). */
export function ownPid(): number {
  return process.pid;
}

/** The user id this process runs as (`process.getuid()`), or null where the platform has none (Windows). */
export function ownUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}
