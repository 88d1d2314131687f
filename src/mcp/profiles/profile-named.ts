/** `profileNamed`: the `ToolProfile` of a `serve --profile` name. */
import type { ProfileName } from '../initialize/index.js';
import { GATEFS_PROFILE, type ToolProfile } from './tool-profile.js';
import { CLAUDE_CODE_PROFILE } from './claude-code.js';

/** The profile called `name` (`gatefs`: the gate's own names; `claude-code`: Claude Code's). */
export function profileNamed(name: ProfileName): ToolProfile {
  return name === 'claude-code' ? CLAUDE_CODE_PROFILE : GATEFS_PROFILE;
}
