/** Helpers for tests that run against the sandbox: a started network, linked Baileys clients, quiet logs. */
export { quietLibsignal } from './quiet-libsignal'
export { releaseLongTimers } from './release-long-timers'
export { SandboxClient, type SandboxClientOptions } from './sandbox-client'
export {
  inboxEntry,
  linkedClient,
  linkedDeviceFixture,
  type LinkedDeviceFixture,
  startTestSandbox,
} from './sandbox-fixture'
