/**
 * The schema of a path argument, shared by every file tool so the limits agree: a non-empty
 * string of at most 4096 characters (the path grammar's byte limit; longer strings are refused
 * by validation with `INVALID_INPUT` before any parsing).
 */
import { Type, type TString } from '@sinclair/typebox';

/** Longest path argument accepted, in UTF-16 code units. */
export const MAX_PATH_ARG_CHARS = 4096;

/** A path argument schema with the given description. */
export function PathArg(description: string): TString {
  return Type.String({ minLength: 1, maxLength: MAX_PATH_ARG_CHARS, description });
}
