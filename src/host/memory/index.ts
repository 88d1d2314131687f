/** The front door of src/host/memory: the memory host's factory (memfs, isomorphic-git; reached through `gatefs/testing`). */
export { createMemoryHost, type CreateMemoryHostOptions, type MemoryHost } from './create-memory-host.js';
