/**
 * `gatefs doctor`: what the command sandbox can do on this machine (docs/ARCHITECTURE.md
 * § Commands): whether a sandbox runs (`BubblewrapSandbox.probe`, which makes one) or why not
 * and the fix, bubblewrap's version, whether gatefs runs as root (the kernel's per-user process
 * limit does not hold root), the kernel's user namespace switches, and whether overlayfs mounts
 * in a user namespace (what a `copy` workspace's commands need). Exit 0 when commands can run
 * confined here, 1 when every `exec` and `check` would answer `BACKEND_UNAVAILABLE`.
 *
 * Opens no host and touches no state: it looks at the machine only; the probes run when it does.
 */
import type { Command } from './command.js';
import { environment } from '../ports/process-io.js';
import { ownUid } from '../ports/own-process.js';
import { BubblewrapSandbox } from '../ports/bubblewrap-sandbox.js';
import { bubblewrapProgram, overlayInUserNamespace, userNamespaceSwitches } from '../ports/user-namespace-facts.js';

type SandboxSupport = Awaited<ReturnType<BubblewrapSandbox['probe']>>;
type UserNamespaceSwitches = ReturnType<typeof userNamespaceSwitches>;
type OverlayTrial = ReturnType<typeof overlayInUserNamespace>;

/** What `gatefs doctor --json` prints. */
interface DoctorReport {
  sandbox: SandboxSupport;
  bubblewrap: ReturnType<typeof bubblewrapProgram>;
  user: { uid: number | null; root: boolean };
  userNamespaces: UserNamespaceSwitches & { unprivileged: 'allowed' | 'forbidden' | 'restricted' };
  overlay: OverlayTrial;
  /** What `exec` and `check` do here. */
  commands: 'confined' | 'refused';
}

/** The `doctor` command. */
export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'say what the command sandbox (exec, check) can do on this machine',
  usage: 'gatefs doctor [--json]',
  positionals: [],
  options: {},
  optionHelp: [],
  details: [
    'Tries a bubblewrap sandbox, as every command runs in one, and reports: bubblewrap and its version,',
    'whether gatefs runs as root, the kernel switches for unprivileged user namespaces',
    '(kernel.unprivileged_userns_clone, user.max_user_namespaces, kernel.apparmor_restrict_unprivileged_userns),',
    'and whether overlayfs mounts in a user namespace (for commands in copy workspaces).',
    'Exit code 0: commands run confined here. 1: none can; every exec and check answers BACKEND_UNAVAILABLE',
    'and nothing runs (never unconfined); the report says why and what to change.',
  ].join('\n'),
  async run({ globals, out }) {
    const report = await doctorReport();
    if (globals.json) out.json(report);
    else out.print(reportText(report));
    return report.commands === 'confined' ? 0 : 1;
  },
};

/** Looks at the machine (see the file comment). */
async function doctorReport(): Promise<DoctorReport> {
  const sandbox = await new BubblewrapSandbox().probe();
  const switches = userNamespaceSwitches();
  const uid = ownUid();
  return {
    sandbox,
    bubblewrap: bubblewrapProgram(environment().PATH ?? '/usr/bin:/bin'),
    user: { uid, root: uid === 0 },
    userNamespaces: { ...switches, unprivileged: unprivilegedVerdict(switches) },
    overlay: overlayInUserNamespace(),
    commands: sandbox.available ? 'confined' : 'refused',
  };
}

/** What the switches allow an ordinary user. */
function unprivilegedVerdict(s: UserNamespaceSwitches): DoctorReport['userNamespaces']['unprivileged'] {
  if (s.unprivilegedUsernsClone === 0 || s.maxUserNamespaces === 0) return 'forbidden';
  if (s.apparmorRestrictUnprivilegedUserns === 1) return 'restricted';
  return 'allowed';
}

/** A switch's value as shown: the number, or that this kernel has none. */
function switchText(value: number | null): string {
  return value === null ? 'not on this kernel' : String(value);
}

/** The readable report. */
function reportText(r: DoctorReport): string {
  const lines: string[] = [];
  if (r.sandbox.available) {
    lines.push(`sandbox: available (${r.sandbox.version})`);
  } else {
    lines.push(`sandbox: unavailable: ${r.sandbox.cause}`, `  fix: ${r.sandbox.fix}`);
  }
  for (const detail of r.sandbox.details) lines.push(`  ${detail}`);
  const bwrap = r.bubblewrap;
  lines.push(
    bwrap.path === null ? 'bubblewrap: not installed' : `bubblewrap: ${bwrap.path} (${bwrap.version ?? 'its version did not answer'})`,
  );
  lines.push(`user: ${r.user.root ? 'root (uid 0)' : `uid ${r.user.uid ?? 'unknown'}, not root`}`);
  const verdict = {
    allowed: 'allowed',
    forbidden: 'forbidden (set kernel.unprivileged_userns_clone=1 and user.max_user_namespaces above 0)',
    restricted: 'restricted by AppArmor: only programs whose AppArmor profile allows it (bwrap needs one) may make them',
  }[r.userNamespaces.unprivileged];
  lines.push(
    `user namespaces for users other than root: ${verdict}`,
    ...(r.user.root ? ['  (gatefs runs as root: of these switches only user.max_user_namespaces applies to it)'] : []),
    `  kernel.unprivileged_userns_clone: ${switchText(r.userNamespaces.unprivilegedUsernsClone)}`,
    `  user.max_user_namespaces: ${switchText(r.userNamespaces.maxUserNamespaces)}`,
    `  kernel.apparmor_restrict_unprivileged_userns: ${switchText(r.userNamespaces.apparmorRestrictUnprivilegedUserns)}`,
  );
  lines.push(
    `overlayfs in a user namespace (commands in copy workspaces): ${r.overlay.works ? 'works' : 'does not work'} (${r.overlay.detail})`,
  );
  lines.push(
    r.commands === 'confined'
      ? 'commands (exec, check): run in the sandbox, over the files of their conversation only'
      : 'commands (exec, check): refused with BACKEND_UNAVAILABLE; nothing runs, never unconfined',
  );
  return lines.join('\n');
}
