import { Type } from '@sinclair/typebox'
import { SandboxError, type SandboxControl } from '@linkdesk/sandbox'
import { AppError } from '../../errors'
import type { InstanceManager } from '../../instances/instance-manager'
import { defineOperation, type Operation } from '../operation'
import { phoneField } from './instance-routes'
import { fromSandboxError } from './sandbox-plugin'

/** How long `sandbox_scan` waits for the scanned instance to be connected. */
const CONNECT_WAIT_MS = 30_000

/**
 * In sandbox mode: what the window's "Scan with a sandbox phone" does, as one call a script (or the README's
 * quick start) can make — start the instance's QR wait, let a simulated phone scan the code shown now, and
 * answer once the instance is connected.
 */
export function sandboxScanOperation(instances: InstanceManager, control: SandboxControl): Operation {
  return defineOperation({
    name: 'sandbox_scan',
    tag: 'Sandbox',
    summary:
      'Sandbox mode only: a simulated phone scans the instance’s QR code; answers once it is connected.',
    description:
      'Starts the QR wait like generate_qrcode, links the code shown now with the given phone (added to the ' +
      'simulated network when new), and waits up to 30 s for the instance to be connected. 409 already_linked ' +
      'when the instance is linked; 504 upstream_timeout when it did not connect in time.',
    auth: 'token',
    instance: true,
    fields: {
      phone: {
        ...phoneField,
        description:
          'The simulated phone that scans: digits with country code; a number not yet on the network is added.',
        example: '15550001111',
      },
      name: {
        type: 'string',
        maxLength: 100,
        description: 'The phone account’s display name.',
        example: 'Alice',
      },
    },
    answer: {
      message: Type.String(),
      jid: Type.String({ description: 'The linked account: <phone>:<device>@s.whatsapp.net.' }),
      lid: Type.String({ description: 'Its LID, <digits>@lid.' }),
    },
    example: {
      status: 'success',
      message: 'Linked by a sandbox phone',
      jid: '15550001111:1@s.whatsapp.net',
      lid: '118302512345678@lid',
    },
    handle: async ({ params, instance }) => {
      const qr = await instances.generateQr(instance.id)
      const connected = connectedSoon(instances, instance.id)
      try {
        const { jid, lid } = await control
          .link({ qr: qr.text, phone: params.phone.replace(/\D/g, ''), name: params.name })
          .catch((error: unknown) => {
            throw error instanceof SandboxError ? fromSandboxError(error) : error
          })
        await connected.done
        return { status: 'success', message: 'Linked by a sandbox phone', jid, lid }
      } finally {
        connected.cancel()
      }
    },
  })
}

/** Resolves when the instance is next seen connected, or rejects with upstream_timeout after the wait. */
function connectedSoon(instances: InstanceManager, instanceId: string) {
  let cancel = () => {}
  const done = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cancel()
      reject(new AppError('upstream_timeout', 'The instance was scanned but did not connect within 30 s.'))
    }, CONNECT_WAIT_MS)
    const stop = instances.onStatus((id, status) => {
      if (id !== instanceId || status.state !== 'connected') return
      cancel()
      resolve()
    })
    cancel = () => {
      clearTimeout(timer)
      stop()
    }
  })
  done.catch(() => {})
  return { done, cancel }
}
