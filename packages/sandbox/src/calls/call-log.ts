import { randomBytes } from 'node:crypto'
import type { Account } from '../accounts/account'
import { node, unixNow } from '../stanzas/binary-node'
import type { SandboxState } from '../state/sandbox-state'
import { StoredList } from '../state/stored-list'

/** A call a phone made, and how it ended for the callee's devices. */
export interface SandboxCall {
  id: string
  /** The caller's phone number. */
  from: string
  /** The callee's phone number. */
  to: string
  video: boolean
  status: 'ringing' | 'rejected'
  /** Unix seconds of the offer. */
  at: number
}

const LIMIT = 1000

/** Calls between accounts: offers rung on the callee's linked devices, and their rejections; kept. */
export class CallLog {
  private readonly calls: StoredList<SandboxCall>

  constructor(state: SandboxState) {
    this.calls = new StoredList(state, 'calls')
  }

  /** The caller's phone rings the callee's linked devices (an offer, as the server relays it). */
  ring(caller: Account, callee: Account, video: boolean): SandboxCall {
    const call: SandboxCall = {
      id: randomBytes(16).toString('hex').toUpperCase(),
      from: caller.phone,
      to: callee.phone,
      video,
      status: 'ringing',
      at: unixNow(),
    }
    this.calls.set(call.id, call)
    if (this.calls.size > LIMIT) this.calls.delete(this.calls.firstKey() ?? '')
    const media = video
      ? node('video', { enc: 'vp8', dec: 'vp8' })
      : node('audio', { enc: 'opus', rate: '16000' })
    const offer = node(
      'call',
      { from: caller.pnJid, id: randomBytes(8).toString('hex').toUpperCase(), t: String(call.at) },
      [node('offer', { 'call-id': call.id, 'call-creator': caller.pnJid, count: '0' }, [media])],
    )
    for (const device of callee.activeDevices()) device.deliver(offer)
    return call
  }

  /** A device of the callee declined the call; false when no such call rings. */
  reject(callId: string, callee: Account): boolean {
    const call = this.calls.get(callId)
    if (!call || call.to !== callee.phone || call.status !== 'ringing') return false
    this.calls.set(callId, { ...call, status: 'rejected' })
    return true
  }

  /** The calls a phone made, oldest first. */
  madeBy(phone: string): SandboxCall[] {
    return [...this.calls.values()].filter((call) => call.from === phone)
  }
}
