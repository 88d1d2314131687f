/**
 * The git contract, refs and remotes of the landing port: refs read and pinned, the names each
 * method takes (refused as `BAD_REF` before anything happens), ancestry and counts, case-folded
 * tree lookups, and fetch and push against a remote (a refusal is a value, not a throw).
 */
import { describe, expect, it } from 'vitest';
import { CTX, commitOnBranch, mainHead, type OpenWorld } from './world.js';

/** Registers the ref and remote checks. */
export function refChecks(open: OpenWorld): void {
  describe('refs', () => {
    it('pins and reads refs, walks ancestry, counts commits ahead and finds merge bases', async () => {
      const w = await open();
      const head = await mainHead(w);
      const one = await commitOnBranch(w, 'one', head, { write: { 'a.txt': '1\n' } });
      const other = await commitOnBranch(w, 'other', head, { write: { 'b.txt': '2\n' } });
      expect(await w.landing.readRef('refs/gatefs/submissions/s1', CTX)).toBeNull();
      await w.landing.pinRef('refs/gatefs/submissions/s1', one, CTX);
      expect(await w.landing.readRef('refs/gatefs/submissions/s1', CTX)).toBe(one);
      await w.landing.pinRef('refs/gatefs/submissions/s1', other, CTX);
      expect(await w.landing.readRef('refs/gatefs/submissions/s1', CTX)).toBe(other);
      expect(await w.landing.isAncestor(head, one, CTX)).toBe(true);
      expect(await w.landing.isAncestor(one, head, CTX)).toBe(false);
      expect(await w.landing.isAncestor(one, one, CTX)).toBe(true);
      expect(await w.landing.countAhead(head, one, CTX)).toBe(1);
      expect(await w.landing.countAhead(one, head, CTX)).toBe(0);
      expect(await w.landing.countAhead(one, other, CTX)).toBe(1);
      expect(await w.landing.mergeBase(one, other, CTX)).toBe(head);
    });

    it('refuses a commit the repository does not hold (COMMAND_FAILED) without changing a ref', async () => {
      const w = await open();
      const head = await mainHead(w);
      const missing = 'f'.repeat(40);
      await expect(w.landing.pinRef('refs/gatefs/x', missing, CTX)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
      expect(await w.landing.readRef('refs/gatefs/x', CTX)).toBeNull();
      await expect(w.landing.isAncestor(missing, head, CTX)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
      await expect(w.landing.mergeBase(head, missing, CTX)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
      await expect(w.landing.countAhead(head, missing, CTX)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
    });

    it('refuses refs, SHAs and remote names git could read as something else (BAD_REF)', async () => {
      const w = await open();
      const head = await mainHead(w);
      for (const ref of [
        'main',
        'refs/heads/a..b',
        'refs/heads/x.lock',
        'refs/heads/@{-1}',
        'refs/heads/a b',
        '--output=x',
        'refs/heads/',
      ]) {
        await expect(w.landing.readRef(ref, CTX)).rejects.toMatchObject({ code: 'BAD_REF' });
        await expect(w.landing.pinRef(ref, head, CTX)).rejects.toMatchObject({ code: 'BAD_REF' });
        await expect(w.landing.fastForward(ref, head, head, CTX)).rejects.toMatchObject({ code: 'BAD_REF' });
      }
      for (const sha of ['HEAD', head.slice(0, 12), '--all', `${head}~1`]) {
        await expect(w.landing.isAncestor(sha, head, CTX)).rejects.toMatchObject({ code: 'BAD_REF' });
        await expect(w.landing.mergeBase(head, sha, CTX)).rejects.toMatchObject({ code: 'BAD_REF' });
        await expect(w.landing.countAhead(sha, head, CTX)).rejects.toMatchObject({ code: 'BAD_REF' });
        await expect(w.landing.checkoutDetached(w.place('lander'), sha, CTX)).rejects.toMatchObject({ code: 'BAD_REF' });
      }
      for (const remote of ['-uupload-pack=touch x', '/tmp/bare', 'ext::sh -c x', '']) {
        await expect(w.landing.fetch(remote, 'main', CTX)).rejects.toMatchObject({ code: 'BAD_REF' });
        await expect(w.landing.push(remote, head, 'main', CTX)).rejects.toMatchObject({ code: 'BAD_REF' });
      }
      expect(w.files.exists(w.place('lander'))).toBe(false);
      expect(await w.landing.readRef('refs/heads/main', CTX)).toBe(head);
    });

    it("finds the entries of a commit's tree a case-insensitive filesystem would take for the paths asked, as the tree spells them", async () => {
      const w = await open({ 'Docs/Read Me.md': 'r\n', 'src/Main.ts': 'm\n', 'src/main.TS': 'n\n', 'top.txt': 't\n' });
      const head = await mainHead(w);
      expect(await w.landing.findTreePaths(head, ['docs/read me.md', 'SRC/MAIN.ts', 'Top.TXT', 'nope', 'docs/nope'], CTX)).toEqual([
        'Docs/Read Me.md',
        'src/Main.ts',
        'src/main.TS',
        'top.txt',
      ]);
      expect(await w.landing.findTreePaths(head, ['DOCS'], CTX)).toEqual(['Docs']);
      expect(await w.landing.findTreePaths(head, [], CTX)).toEqual([]);
    });
  });

  describe('remotes', () => {
    it('pushes fast-forwards only, reports a refused push as a value, and fetches (a missing branch is null)', async () => {
      const w = await open();
      const head = await mainHead(w);
      await w.createRemote('origin');
      expect(await w.landing.fetch('origin', 'main', CTX)).toBeNull();
      expect(await w.landing.push('origin', head, 'main', CTX)).toEqual({ ok: true });
      expect(await w.remoteBranch('origin', 'main')).toBe(head);
      const next = await commitOnBranch(w, 'side', head, { write: { 'a.txt': 'A2\n' } });
      w.refuseNextPush('origin');
      expect(await w.landing.push('origin', next, 'main', CTX)).toMatchObject({ ok: false, detail: expect.any(String) });
      expect(await w.remoteBranch('origin', 'main')).toBe(head);
      expect(await w.landing.push('origin', next, 'main', CTX)).toEqual({ ok: true });
      expect(await w.remoteBranch('origin', 'main')).toBe(next);
      expect(await w.landing.push('origin', head, 'main', CTX)).toMatchObject({ ok: false });
      expect(await w.remoteBranch('origin', 'main')).toBe(next);
      expect(await w.landing.fetch('origin', 'main', CTX)).toBe(next);
      expect(await w.landing.readRef('refs/remotes/origin/main', CTX)).toBe(next);
      expect(await w.landing.fetch('origin', 'no-such-branch', CTX)).toBeNull();
    });

    it('a remote that does not exist: fetch throws COMMAND_FAILED, push answers not ok', async () => {
      const w = await open();
      const head = await mainHead(w);
      await expect(w.landing.fetch('nowhere', 'main', CTX)).rejects.toMatchObject({ code: 'COMMAND_FAILED' });
      expect(await w.landing.push('nowhere', head, 'main', CTX)).toMatchObject({ ok: false });
    });
  });
}
