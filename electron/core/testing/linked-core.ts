import { rmSync } from 'node:fs'
import { after, before } from 'node:test'
import type { Core } from '../index'
import { call, startCore, tempDataDir } from './instance-harness'
import type { SandboxControl } from '@linkdesk/sandbox'
import { linkedInstance, recordEvents } from './messaging-harness'

/** A test file's core in sandbox mode, with its contacts and one linked instance. */
export interface LinkedCore {
  readonly core: Core
  readonly instanceId: string
  /** The events emitted since the core (re)started. */
  readonly events: ReturnType<typeof recordEvents>
  /** The in-process sandbox's control surface. */
  readonly control: SandboxControl
  /** Calls an operation on the linked instance as a script would. */
  api(operation: string, params?: Record<string, unknown>): Promise<{ status: number; body: any }>
  /**
   * Closes the core and starts it again on the same data folder (the instance stays linked); `closed`: the
   * test closed it already (to keep it down for a while).
   */
  restart(options?: { closed?: boolean }): Promise<void>
}

/**
 * Registers a test file's `before`/`after`: a core in sandbox mode without pacing (plus `config`), the
 * contacts added, and `me` linked; everything is closed and removed after the file's tests.
 */
export function linkedCoreFixture(
  me: string,
  contacts: Array<Parameters<SandboxControl['addAccount']>[0]>,
  config: Omit<Parameters<typeof startCore>[0], 'dataDir' | 'sandbox'> = {},
  /** What happens on the network before `me` links (such as messages its phone receives). */
  beforeLink?: (control: SandboxControl) => Promise<void>,
): LinkedCore {
  const dataDir = tempDataDir()
  const start = () =>
    startCore({
      ...config,
      dataDir,
      sandbox: true,
      limits: { sendIntervalMs: 0, sendJitterMs: 0, ...config.limits },
    })
  let state: { core: Core; events: ReturnType<typeof recordEvents>; instanceId: string } | undefined
  const current = () => {
    if (!state) throw new Error('the core fixture is used before its test file started it')
    return state
  }
  before(async () => {
    const core = await start()
    const events = recordEvents(core)
    for (const contact of contacts) await core.sandbox!.control.addAccount(contact)
    await beforeLink?.(core.sandbox!.control)
    state = { core, events, instanceId: await linkedInstance(core, me) }
  })
  after(async () => {
    await state?.core.close()
    rmSync(dataDir, { recursive: true, force: true })
  })
  return {
    get core() {
      return current().core
    },
    get instanceId() {
      return current().instanceId
    },
    get events() {
      return current().events
    },
    get control() {
      return current().core.sandbox!.control
    },
    api: (operation, params = {}) =>
      call(current().core.apiBase, operation, { instance_id: current().instanceId, ...params }),
    async restart({ closed = false } = {}) {
      const { instanceId } = current()
      if (!closed) await current().core.close()
      const core = await start()
      state = { core, events: recordEvents(core), instanceId }
    },
  }
}
