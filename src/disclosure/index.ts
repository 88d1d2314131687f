/** The front door of src/disclosure: attaching progressive disclosure to a workspace, its stored state, its start. */
export { attachDisclosure } from './attach-disclosure.js';
export { type DisclosureState, sparseCheckoutOf } from './disclosure-state.js';
export { startDisclosure } from './initial-disclosure.js';
