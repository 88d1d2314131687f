/**
 * The starter `gatefs.yaml` that `gatefs init` writes. Its live part is the default manifest;
 * the comments show every other key with its default or an example.
 */

const STARTER = `# gatefs.yaml: the roles your agents run as.
# Each conversation is prepared with one role (gatefs prepare <id> --role NAME; default: the
# first role). Keys are snake_case; an unknown key is an error, so typos do not pass silently.
# The lander's checks and remote go under a top-level lander: key (or a --settings JSON file):
# lander: { checks: ["npm test"], push: origin }
# Checks an agent may run by name with the check tool (in its sandbox; it never names a command):
# checks:
#   - { name: unit, command: "npx vitest run", timeout: 120, paths: true }
#   - { name: types, command: "npx tsc --noEmit" }

roles:
  - name: agent
    # max_visits: 3             # how many conversations of this role a run may have (gatefs prepare ID --run RUN; default: unlimited)
    # any of: read, grep, list, edit, write, delete, move, request_files, diff, commit, submit, messages,
    # exec, exec_output, exec_kill, check, checkpoint, rollback, handoff, end, whereami   (diff, commit, submit bring work home;
    # messages reads the landing's outcome; whereami says where the agent works and what it may do; checkpoint saves the whole workspace and rollback returns to a checkpoint;
    # handoff passes named files to another role of the run, end ends the run; a role with handoff needs a
    # name of letters, digits, '.', '_', '-', since its files are kept in a folder <role>-v<visit>)
    tools: [read, grep, list, edit, write, delete, move, diff, commit, submit, messages, whereami]
    workspace:
      backend: worktree         # shared | worktree | copy | empty   (container is not available)
      # source: snapshot        # accepted as Conductor writes it: every workspace is made from the pinned snapshot
      # mounts:                 # extra places the agent sees, each with its own write flag
      #   - { path: .campaign, writable: false }   # relative: from the pinned commit, read-only
      #   - { path: /data/out, writable: true }    # absolute: a host folder at the same path
    # What handoff collects: at most max_files files of at most max_file_bytes each; auto_patch (worktree only,
    # its default there) keeps a patch of the workspace against its pinned base at each handoff and end.
    # artifacts: { auto_patch: true, max_file_bytes: 1048576, max_files: 32 }
    # subagents: { isolate: worktree }   # gatefs subagent start: a child's own worktree (the only isolation)
    # Commands (tools exec, exec_output, exec_kill, check) run in a kernel sandbox that sees this
    # workspace and its mounts only (gatefs doctor says whether one can run here). Defaults shown:
    # exec: { network: false, timeout: 120, memory: 2G, processes: 256, output: 1M, env: [PATH, LANG, TERM], checkpoint: false }
    #   (checkpoint: true takes a snapshot before each exec command, so rollback can undo what it did)
    # share: [node_modules]     # ignored folders of your checkout shown read-only in the workspace

  # A least-privilege role: starts with a few files and asks for more with request_files.
  # - name: reviewer
  #   tools: [read, grep, list, request_files]
  #   workspace:
  #     backend: worktree       # progressive disclosure needs worktree
  #     progressive_disclosure:
  #       initial_paths: [README.md]          # literal repository-relative paths, no globs
  #       allowed_paths: [src, docs]          # exact files below these may be requested

# Every write is atomic (a temp file renamed over the name: readers see the old or the new bytes).
# With fsync true, each change is also on stable storage before the tool answers ok, so it
# survives a power loss, at the cost of a disk flush per change (default false, as most editors).
# writes: { fsync: false }
`;

/**
 * Returns the commented starter manifest text; it loads to the default manifest. With `backend:
 * 'copy'` (for a folder outside any git repository, where a worktree cannot be made) the role's
 * backend is `copy`, brought home with `gatefs apply`.
 */
export function starterManifestText(options: { backend?: 'worktree' | 'copy' } = {}): string {
  if (options.backend !== 'copy') return STARTER;
  return STARTER.replace(
    '      backend: worktree         # shared | worktree | copy | empty   (container is not available)',
    '      backend: copy             # not a git repository: an overlay copy, brought home with gatefs apply ID; shared | worktree | copy | empty',
  );
}
