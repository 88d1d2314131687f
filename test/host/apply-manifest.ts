/** Test support: the manifest of the apply tests: one role with a `copy` workspace and the file tools. */
export const APPLY_MANIFEST = {
  roles: [{ name: 'cp', tools: ['read', 'grep', 'list', 'edit', 'write', 'delete', 'move'], workspace: { backend: 'copy' } }],
};
