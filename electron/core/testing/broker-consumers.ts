import * as amqp from 'amqplib'
import { connect as natsConnect, type NatsConnection } from 'nats'
import type { LinkdeskEvent } from '../contract/events'

/** A message as a consumer got it from a broker: where it was published, its ids and the event it carries. */
export interface ConsumedMessage {
  /** The routing key (RabbitMQ) or subject (NATS). */
  key: string
  /** The AMQP message id, or the NATS Nats-Msg-Id header. */
  messageId: string | undefined
  /** The x-linkdesk-event-id header. */
  eventIdHeader: string | undefined
  /** AMQP delivery mode (2: persistent); undefined on NATS. */
  persistent?: boolean
  event: LinkdeskEvent
}

/** Declares the durable topic exchange and a durable queue bound to it with `binding`, as a consumer would. */
export async function bindRabbitQueue(url: string, exchange: string, binding: string): Promise<string> {
  const connection = await amqp.connect(url)
  try {
    const channel = await connection.createChannel()
    await channel.assertExchange(exchange, 'topic', { durable: true })
    const { queue } = await channel.assertQueue(`consumer-${binding}`, { durable: true })
    await channel.bindQueue(queue, exchange, binding)
    return queue
  } finally {
    await connection.close()
  }
}

/**
 * Consumes from a durable queue (acknowledging each message) until `done` holds for what this call took, or
 * the timeout; answers what it took, in the order the broker delivered it.
 */
export async function consumeRabbit(
  url: string,
  queue: string,
  done: (taken: readonly ConsumedMessage[]) => boolean,
  timeoutMs = 60_000,
): Promise<ConsumedMessage[]> {
  const connection = await amqp.connect(url)
  const taken: ConsumedMessage[] = []
  try {
    const channel = await connection.createChannel()
    await channel.prefetch(500)
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(`the queue had ${taken.length} messages, not all expected, after ${timeoutMs} ms`),
          ),
        timeoutMs,
      )
      if (done(taken)) {
        clearTimeout(timer)
        resolve()
        return
      }
      void channel.consume(queue, (message) => {
        if (!message) return
        channel.ack(message)
        const headers = message.properties.headers ?? {}
        taken.push({
          key: message.fields.routingKey,
          messageId: message.properties.messageId as string | undefined,
          eventIdHeader: headers['x-linkdesk-event-id'] as string | undefined,
          persistent: message.properties.deliveryMode === 2,
          event: JSON.parse(message.content.toString()) as LinkdeskEvent,
        })
        if (done(taken)) {
          clearTimeout(timer)
          resolve()
        }
      })
    })
    return taken
  } finally {
    await connection.close()
  }
}

/**
 * An ordered consumer of `stream`, once it exists: Linkdesk creates the stream with its first publish, which
 * may come after the consumer starts waiting.
 */
async function streamConsumer(connection: NatsConnection, stream: string, subject: string, deadline: number) {
  for (;;) {
    try {
      return await connection.jetstream().consumers.get(stream, { filterSubjects: subject })
    } catch (error) {
      if (!/stream not found/.test((error as Error).message) || Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
}

/**
 * Reads a JetStream stream from its first message through an ordered consumer (filtered by `subject`) until
 * `done` holds for what it read, or the timeout; answers the messages in stream order.
 */
export async function consumeNats(
  url: string,
  stream: string,
  subject: string,
  done: (taken: readonly ConsumedMessage[]) => boolean,
  timeoutMs = 60_000,
): Promise<ConsumedMessage[]> {
  const connection = await natsConnect({ servers: url.replace(/^nats:\/\//, '') })
  const taken: ConsumedMessage[] = []
  try {
    const deadline = Date.now() + timeoutMs
    const consumer = await streamConsumer(connection, stream, subject, deadline)
    while (!done(taken)) {
      if (Date.now() > deadline)
        throw new Error(`the stream had ${taken.length} messages, not all expected, after ${timeoutMs} ms`)
      const batch = await consumer.fetch({ max_messages: 500, expires: 2_000 })
      for await (const message of batch) {
        taken.push({
          key: message.subject,
          messageId: message.headers?.get('Nats-Msg-Id'),
          eventIdHeader: message.headers?.get('x-linkdesk-event-id'),
          event: message.json<LinkdeskEvent>(),
        })
      }
    }
    return taken
  } finally {
    await connection.close()
  }
}
