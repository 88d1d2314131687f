/**
 * `namespaceView(ns)`: a Namespace seen as a layer, so the conformance suite can drive it. Each
 * layer path `rel` is addressed as the absolute namespace path `<root>/<rel>`; errors are left
 * untouched, so the suite sees (and checks) the namespace paths they carry.
 */
import type {
  DirEntry,
  ReadOptions,
  RemoveOptions,
  RenameOptions,
  Stat,
  WritableLayer,
  WriteOptions,
  WriteResult,
} from '../../vfs/layer.js';
import type { Namespace } from '../../vfs/namespace.js';

/** The absolute namespace path of the layer path `rel` under the namespace root. */
export function namespacePath(ns: Namespace, rel: string): string {
  return rel === '' ? ns.root : `${ns.root}/${rel}`;
}

/** The namespace as a WritableLayer over its root (see the file comment). */
export function namespaceView(ns: Namespace): WritableLayer {
  const at = (rel: string) => namespacePath(ns, rel);
  return {
    kind: 'namespace',
    stat: (rel: string): Promise<Stat> => ns.stat(at(rel)),
    readFile: (rel: string, options?: ReadOptions): Promise<Uint8Array> => ns.readFile(at(rel), options),
    readdir: (rel: string): Promise<DirEntry[]> => ns.readdir(at(rel)),
    writeFile: (rel: string, data: Uint8Array, options?: WriteOptions): Promise<WriteResult> => ns.writeFile(at(rel), data, options),
    mkdir: (rel: string): Promise<void> => ns.mkdir(at(rel)),
    remove: (rel: string, options?: RemoveOptions): Promise<void> => ns.remove(at(rel), options),
    rename: (from: string, to: string, options?: RenameOptions): Promise<void> => ns.rename(at(from), at(to), options),
  };
}
