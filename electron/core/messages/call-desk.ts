import { boundedCache, CACHE_LIMITS } from '../bounded-cache'
import { AppError } from '../errors'
import type { EventSink } from '../contract/events'
import type { Logger } from '../logger'
import type { WaCallOffer, WaConnection } from '../contract/network'
import type { MessageSender } from './message-sender'

/** An instance's answer to calls: reject every one (with a text to the caller, if given), or let them ring. */
export interface CallSettings {
  reject: boolean
  /** Sent to the caller after an automatic rejection; null sends nothing. */
  message: string | null
}

export const NO_CALL_REJECTION: CallSettings = { reject: false, message: null }

export interface CallDeskDeps {
  events: EventSink
  sender: MessageSender
  logger: Logger
  connection(instanceId: string): Promise<WaConnection>
  settings(instanceId: string): CallSettings
  /** Keeps an instance's call setting (it survives restarts). */
  saveSettings(instanceId: string, settings: CallSettings): Promise<unknown>
}

/** Longest text sent to a rejected caller. */
export const CALL_MESSAGE_CHARS = 1000

/**
 * Incoming calls: each becomes a call.received event (once per call id); a ringing call can be rejected by
 * hand, or at once when the instance rejects calls, followed by its text to the caller.
 */
export class CallHandling {
  private readonly ringing = boundedCache<string, WaCallOffer>(CACHE_LIMITS.offeredCalls)
  private readonly log: Logger

  constructor(private readonly deps: CallDeskDeps) {
    this.log = deps.logger.child({ module: 'calls' })
  }

  offered(instanceId: string, call: WaCallOffer): void {
    const phone = call.callerPhone?.endsWith('@s.whatsapp.net') ? call.callerPhone.split('@')[0] : null
    this.ringing.set(`${instanceId}\u0000${call.id}`, call)
    const announced = this.deps.events.emitForMessage(instanceId, call.id, 'call.received', {
      id: call.id,
      from: call.from,
      from_phone: phone ?? null,
      from_lid: call.callerLid ?? (call.from.endsWith('@lid') ? call.from : null),
      video: call.video,
      group: call.group,
      group_id: call.groupJid,
      offline: call.offline,
      timestamp: String(call.timestamp),
    })
    announced
      .then(async (fresh) => {
        const settings = this.deps.settings(instanceId)
        // An offer delivered again was handled when it was first announced.
        if (!fresh || !settings.reject) return
        await this.reject(instanceId, call.id)
        if (settings.message) {
          const text = settings.message
          await this.deps.sender.sendTo(instanceId, call.from, async () => ({ kind: 'text', text }))
        }
      })
      .catch((error: unknown) =>
        this.log.warn({ err: error, instanceId, callId: call.id }, 'rejecting a call failed'),
      )
  }

  /** Rejects every call from now on (with a text to the caller when given), or lets calls ring again. */
  async setRejection(instanceId: string, settings: CallSettings): Promise<CallSettings> {
    if (settings.message !== null && (!settings.reject || settings.message.length > CALL_MESSAGE_CHARS)) {
      throw new AppError(
        'invalid_parameter',
        settings.reject
          ? `message must be at most ${CALL_MESSAGE_CHARS} characters.`
          : 'message goes with enable=true: it is sent after rejecting a call.',
        { details: { parameter: 'message' } },
      )
    }
    await this.deps.saveSettings(instanceId, settings)
    this.deps.events.emit(instanceId, 'instance.updated', { changed: ['calls'] })
    return settings
  }

  /** Declines a call that is still ringing; call_not_found for one that never rang or already ended. */
  async reject(instanceId: string, callId: string): Promise<WaCallOffer> {
    const key = `${instanceId}\u0000${callId}`
    const call = this.ringing.get(key)
    if (!call) {
      throw new AppError('call_not_found', `No call with the id ${callId} is ringing on this instance.`, {
        details: { parameter: 'call_id' },
      })
    }
    const connection = await this.deps.connection(instanceId)
    await connection.rejectCall(call.id, call.from)
    this.ringing.delete(key)
    return call
  }
}
