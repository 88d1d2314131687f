/**
 * How a run-log event's data reads as text. `summarizeEvent`: the few fields a person scans for
 * (tool, outcome code, git argv, role, branch, holder, …) as one short line, for `gatefs demo`
 * and the status page. `describeEvent`: every field, none cut, for `gatefs log`. Never file
 * contents: the run log holds none.
 *
 * The agent model's events read as sentences of their fields: `binding.attach workspace=w
 * mode=exclusive-write previous=shared-read`, `binding.switch workspace=canonical from=c1`,
 * `binding.end workspace=c2 holder=c1 mode=shared-read reason=workspace-released`,
 * `home.seeded agent=a made=AGENTS.md,notes`, `home.tmp_cleaned agent=a entries=3`.
 */

const SHOWN_KEYS = [
  'tool',
  'clientTool',
  'outcome',
  'code',
  'tag',
  'argv',
  'exitCode',
  'role',
  'backend',
  'branch',
  'agent',
  'workspace',
  'from',
  'holder',
  'mode',
  'previous',
  'entries',
  'made',
  'paths',
];

/** Fields `describeEvent` puts first, in this order; the others follow in name order. */
const LEADING_KEYS = [
  'tool',
  'clientTool',
  'outcome',
  'paths',
  'agent',
  'workspace',
  'from',
  'holder',
  'mode',
  'previous',
  'code',
  'reason',
  'submission',
  'tag',
  'argv',
  'exitCode',
  'signal',
  'timedOut',
  'limit',
  'error',
  'role',
  'backend',
  'branch',
];

/**
 * The summary of `data`: `key=value` pairs of the shown keys, at most `max` characters (default
 * 100), a git argv with its safety settings folded (`describeEvent`), so the subcommand shows.
 */
export function summarizeEvent(data: Record<string, unknown>, max = 100): string {
  const parts: string[] = [];
  for (const key of SHOWN_KEYS) {
    const v = data[key];
    if (v === undefined || v === null) continue;
    const text = Array.isArray(v)
      ? key === 'argv'
        ? foldGitSettings(v.map(String)).join(' ')
        : v.join(',')
      : typeof v === 'object'
        ? JSON.stringify(v)
        : String(v);
    parts.push(`${key}=${key === 'argv' ? `"${text}"` : text}`);
  }
  return parts.join(' ').slice(0, max);
}

/** How `describeEvent` shows a git argv. */
export interface DescribeOptions {
  /**
   * Fold the run of `-c name=value` settings gatefs gives every git command (hooks, filters and
   * signing off) into `[N -c settings]`, so the subcommand shows; default true. The folded
   * words are the same on every git command gatefs runs; `--json` and `--wide` show them.
   */
  foldGitSettings?: boolean;
}

/**
 * Every field of `data` as `key=value` pairs, the leading fields first (tool, outcome, paths,
 * argv, exit code, signal, …), none cut: strings bare when they hold no space, quote or `=`,
 * else as JSON; lists comma-joined (`[]` when empty; argv space-joined in quotes); objects as JSON. Null fields
 * and `timedOut=false` are left out.
 */
export function describeEvent(data: Record<string, unknown>, options: DescribeOptions = {}): string {
  const keys = [
    ...LEADING_KEYS.filter((k) => k in data),
    ...Object.keys(data)
      .filter((k) => !LEADING_KEYS.includes(k))
      .sort(),
  ];
  const parts: string[] = [];
  for (const key of keys) {
    const v = data[key];
    if (v === undefined || v === null || (key === 'timedOut' && v === false)) continue;
    if (key === 'argv' && Array.isArray(v)) {
      const words = v.map(String);
      parts.push(`argv="${(options.foldGitSettings === false ? words : foldGitSettings(words)).join(' ')}"`);
    } else parts.push(`${key}=${shown(v)}`);
  }
  return parts.join(' ');
}

function shown(v: unknown): string {
  if (Array.isArray(v) && v.length === 0) return '[]';
  if (Array.isArray(v)) return v.every((x) => typeof x === 'string') ? v.map(bare).join(',') : JSON.stringify(v);
  if (typeof v === 'object') return JSON.stringify(v);
  return bare(v);
}

function bare(v: unknown): string {
  const text = String(v);
  return text === '' || /[\s"'=,]/.test(text) ? JSON.stringify(text) : text;
}

/**
 * A program's leading run of two or more `-c name=value` settings (gatefs's git safety settings)
 * as `[N -c settings]`: `prog -c a.b=1 -c c.d=2 rest` → `prog [2 -c settings] rest`. Any other
 * argv as it is (a shell's single `-c 'script'` is never folded).
 */
function foldGitSettings(argv: readonly string[]): string[] {
  let i = 1;
  while (argv[i] === '-c' && i + 1 < argv.length && SETTING.test(argv[i + 1]!)) i += 2;
  const settings = (i - 1) / 2;
  return settings < 2 ? [...argv] : [argv[0]!, `[${settings} -c settings]`, ...argv.slice(i)];
}

/** A configuration setting as `-c` takes it: `section.name=value`. */
const SETTING = /^[A-Za-z][\w-]*(\.[\w-]+)+=/;
