/** The front door of src/host/apply: a copy workspace's way home (`gatefs apply`, `host.apply`). */
export type { ApplyEntry, ApplyOptions, ApplyReport, ApplyStatus } from './apply-types.js';
export { hostApply, recordBaseAfterPrepare, setBaseAside } from './host-apply.js';
