/**
 * The id port. Only `randomIds` uses randomness; the memory host uses `SequentialIds`.
 */
import { randomBytes } from 'node:crypto';

export interface IdSource {
  /** A new id, `<prefix>-<suffix>`, matching the conversation id grammar when prefix does. */
  next(prefix: string): string;
}

/** Random ids (8 random bytes, hex). */
export const randomIds: IdSource = { next: (prefix) => `${prefix}-${randomBytes(8).toString('hex')}` };

/** Ids `<prefix>-1`, `<prefix>-2`, … in call order. */
export class SequentialIds implements IdSource {
  private counter = 0;

  next(prefix: string): string {
    return `${prefix}-${++this.counter}`;
  }
}
