/**
 * What the snapshot commands (`gatefs snapshot`, `snapshots`, `restore`) share: sizes as people
 * read them, the check of a label given on the command line, and the refusal of an unknown
 * snapshot id naming the ids there are.
 */
import { CHECKPOINT_MAX_LABEL } from '../../tools/index.js';
import { CodedError } from '../../vfs/index.js';
import { UsageError } from './usage-error.js';

/** `bytes` as `512 B`, `4.0 KiB`, `1.2 MiB`, `3.4 GiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** A `--label` as given, or `UsageError` when it is longer than a label may be or holds a control character. */
export function labelArg(raw: string | boolean | undefined, command: string): string | undefined {
  if (raw === undefined || typeof raw === 'boolean') return undefined;
  if (raw.length > CHECKPOINT_MAX_LABEL) {
    throw new UsageError(`--label is ${raw.length} characters long; a label has at most ${CHECKPOINT_MAX_LABEL}`, command);
  }
  if (/[\u0000-\u001f\u007f-\u009f]/.test(raw))
    throw new UsageError('--label holds a control character (a line break, a tab, …): a label is one line', command);
  return raw;
}

/**
 * The error to show for a refused restore: a `SNAPSHOT_NOT_FOUND` whose message does not list the
 * ids there are gets them appended (from `data.available`); anything else is returned as it is.
 */
export function withAvailableIds(e: unknown, conversation: string): unknown {
  if (!(e instanceof CodedError) || e.code !== 'SNAPSHOT_NOT_FOUND') return e;
  const available = e.data.available;
  if (!Array.isArray(available) || (available.length > 0 && e.message.includes(available.join(', ')))) return e;
  const list =
    available.length === 0
      ? `"${conversation}" has no snapshots yet: take one with gatefs snapshot ${conversation}`
      : `the snapshots of "${conversation}" are ${available.join(', ')} (gatefs snapshots ${conversation} lists them)`;
  return new CodedError(e.code, `${e.message}; ${list}`, e.data, { cause: e });
}
