/**
 * The git contract (test/git/contract/suite.ts) run over both implementations of the git ports:
 * the git program, the reference, and isomorphic-git over memfs, the memory host's twin.
 */
import { gitContract } from './contract/suite.js';
import { cliWorld } from './contract/cli-world.js';
import { memoryWorld } from './contract/memory-world.js';

gitContract('git program (CliGit, CliLandingGit)', cliWorld);
gitContract('isomorphic-git over memfs (MemoryGit, MemoryLandingGit)', memoryWorld);
