/** The front door of tools/patterns: the glob and .gitignore matchers, their work meter and their error. */
export { GitignoreFile } from './gitignore-file.js';
export { compileGlob, type GlobMatcher } from './glob-matcher.js';
export { MatchMeter, type WorkCounter } from './match-work.js';
export { PatternError } from './pattern-error.js';
