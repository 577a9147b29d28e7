import { parentPort } from 'node:worker_threads'
import { Agent } from 'undici'
import { postWebhook, type PostRequest } from './webhook-delivery'

/**
 * A webhook delivery thread (worker_threads): builds each POST's body, signs it and POSTs it through its own
 * keep-alive pool, and answers what the receiver said. The main thread sends it the posts (delivery-threads.ts)
 * and keeps everything else: the outbox, the attempts and their commits, the order of each queue.
 */
export type ToThread =
  { type: 'post'; id: number; request: PostRequest; timeoutMs: number } | { type: 'abort'; id: number }

const port = parentPort
if (!port) throw new Error('delivery-thread runs as a worker thread (delivery-threads.ts starts it)')

const dispatcher = new Agent({ keepAliveTimeout: 30_000 })
const posting = new Map<number, AbortController>()

port.on('message', (message: ToThread) => {
  if (message.type === 'abort') {
    posting.get(message.id)?.abort()
    return
  }
  const { id, request, timeoutMs } = message
  const abort = new AbortController()
  posting.set(id, abort)
  void postWebhook(request, { dispatcher, timeoutMs, signal: abort.signal }).then((answer) => {
    posting.delete(id)
    port.postMessage({ id, answer })
  })
})
