/**
 * The core's sample message, for the window's tests that run in Node. The window imports only type
 * definitions from the core; its tests read the core's values through this folder, as the browser tests do.
 */
export { SAMPLE_MESSAGE } from '../../electron/core/contract/event-catalogue'
