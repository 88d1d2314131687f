/**
 * Readable text for a tool result: what an MCP client shows a person or a model that ignores
 * `structuredContent`. One renderer per tool, with a JSON fallback for values it does not know.
 */
import type { ToolResult } from '../../tools/result.js';

type Row = Record<string, unknown>;

/**
 * Renders a gate result as text. An error reads `CODE: message` (with the namespace path when
 * the error carries one), so the stable code is visible in the text as well as the structure.
 */
export function toolResultText(tool: string, result: ToolResult): string {
  if (!result.ok) {
    const { code, message, path } = result.error;
    return `${code}: ${message}${path && !message.includes(path) ? ` (${path})` : ''}`;
  }
  const value = result.value as Row;
  switch (tool) {
    case 'read':
      return readText(value);
    case 'list':
      return listText(value);
    case 'grep':
      return grepText(value);
    case 'edit':
      return `edited ${value.path}: ${value.replacements} replacement(s), sha256 ${value.sha256}`;
    case 'write':
      return `${value.created ? 'created' : 'wrote'} ${value.path}: ${value.bytes} bytes, sha256 ${value.sha256}`;
    case 'delete':
      return `deleted ${value.path}`;
    case 'move':
      return `moved ${value.from} to ${value.to}`;
    case 'request_files':
      return requestText(value);
    case 'diff':
      return diffText(value);
    case 'commit':
      return commitText(value);
    case 'submit':
      return `submitted ${String(value.commit).slice(0, 12)} for ${value.target} as ${value.submissionId} (position ${value.queuePosition} in the queue); the landing report arrives under request id ${value.requestId}`;
    default:
      return JSON.stringify(value, null, 2);
  }
}

/** A change letter per file, then the patch (the file list alone when nothing changed). */
function diffText(v: Row): string {
  const files = (v.files as Row[] | undefined) ?? [];
  const letter: Record<string, string> = { added: 'A', modified: 'M', deleted: 'D', typechange: 'T' };
  const head = `changes against ${v.base} (${String(v.baseSha).slice(0, 12)}): ${files.length} file(s)`;
  if (files.length === 0) return `${head}\n(no changes)`;
  const list = files.map((f) => `${letter[String(f.status)] ?? '?'} ${f.path}`);
  const cut = v.truncated ? ['(patch truncated: pass a path to see one file or folder)'] : [];
  return [head, ...list, '', String(v.patch ?? ''), ...cut].join('\n');
}

function commitText(v: Row): string {
  const files = (v.files as Row[] | undefined) ?? [];
  if (files.length === 0) return `nothing to commit; ${v.branch} is at ${String(v.sha).slice(0, 12)}`;
  return `committed ${String(v.sha).slice(0, 12)} on ${v.branch}: ${files.length} file(s)\n${files.map((f) => `${f.status} ${f.path}`).join('\n')}`;
}

function readText(v: Row): string {
  const more = v.truncated ? `; more lines remain, continue with offset ${Number(v.endLine) + 1}` : '';
  const header = `${v.path} lines ${v.startLine}-${v.endLine} of ${v.totalLines}${more}`;
  return `${header}\n${String(v.content ?? '')}`;
}

function listText(v: Row): string {
  const entries = (v.entries as Row[] | undefined) ?? [];
  const lines = entries.map((e) => `${e.type === 'directory' ? `${e.path}/` : e.path}${e.type === 'symlink' ? ' (symlink)' : ''}`);
  if (entries.length === 0) lines.push('(no entries)');
  if (v.truncated) lines.push('(truncated: narrow the path or pattern, or raise maxResults)');
  return lines.join('\n');
}

function grepText(v: Row): string {
  const lines: string[] = [];
  if (Array.isArray(v.files)) lines.push(...(v.files as string[]));
  if (Array.isArray(v.matches)) {
    for (const m of v.matches as Row[]) lines.push(`${m.path}:${m.line}: ${m.text}`);
  }
  if (Array.isArray(v.counts)) {
    for (const c of v.counts as Row[]) lines.push(`${c.path}: ${c.count}`);
  }
  if (lines.length === 0) lines.push('(no matches)');
  if (v.truncated) lines.push('(truncated: narrow the search or raise maxResults)');
  return lines.join('\n');
}

function requestText(v: Row): string {
  const disclosed = (v.disclosedPaths as string[] | undefined) ?? [];
  const lines = [`${v.outcome}${disclosed.length ? `: ${disclosed.join(', ')}` : ''}`];
  for (const p of (v.problems as Row[] | undefined) ?? []) lines.push(`${p.path}: ${p.code}`);
  return lines.join('\n');
}
