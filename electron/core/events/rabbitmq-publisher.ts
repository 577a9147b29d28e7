import * as amqp from 'amqplib'
import type { LinkdeskEvent } from '../contract/events'
import { refusal, SINK_HEADERS, type Publisher } from './sink-publisher'

/** The RabbitMQ routing key of an event: `<instance>.<event>` (such as `609A….message.received`). */
export function routingKey(event: LinkdeskEvent): string {
  return `${event.instance_id}.${event.event}`
}

/** The AMQP reply code of a channel or connection closed by the broker (403 access refused, 406 precondition failed). */
function replyCode(error: unknown): number | undefined {
  const { code } = (error ?? {}) as { code?: unknown }
  return typeof code === 'number' ? code : undefined
}

/** A RabbitMQ sink's connection: a confirm channel on its topic exchange, each event routed by `routingKey`. */
export class RabbitPublisher implements Publisher {
  broken = false
  /** Why the broker closed the channel: a refused publish only rejects its confirm with "channel closed". */
  private closedBecause: unknown

  private constructor(
    private readonly model: amqp.ChannelModel,
    private readonly channel: amqp.ConfirmChannel,
    private readonly exchange: string,
  ) {}

  /**
   * Connects and opens a confirm channel on the exchange: declared (durable, topic) when the user may configure
   * it; an exchange the operator made is used as it is when the user may only write to it.
   */
  static async open(url: string, exchange: string, timeoutMs: number): Promise<RabbitPublisher> {
    const model = await amqp.connect(url, {
      timeout: timeoutMs,
      clientProperties: { connection_name: 'linkdesk' },
    })
    let publisher: RabbitPublisher | undefined
    const lost = () => {
      if (publisher) publisher.broken = true
    }
    model.on('error', lost)
    model.on('close', lost)
    try {
      const channel = await RabbitPublisher.exchangeChannel(model, exchange)
      channel.on('error', (error: unknown) => {
        if (publisher) publisher.closedBecause = error
        lost()
      })
      channel.on('close', lost)
      publisher = new RabbitPublisher(model, channel, exchange)
      return publisher
    } catch (error) {
      await model.close().catch(() => undefined)
      throw error
    }
  }

  private static async exchangeChannel(model: amqp.ChannelModel, exchange: string) {
    const declaring = await model.createConfirmChannel()
    // A refused declaration closes the channel: the error is the declaration's, the event only says so again.
    declaring.on('error', () => undefined)
    try {
      await declaring.assertExchange(exchange, 'topic', { durable: true })
      return declaring
    } catch (error) {
      if (replyCode(error) === 406)
        throw refusal(
          `exchange ${exchange} exists with another type or settings; a sink publishes to a durable topic exchange`,
          error,
        )
      if (replyCode(error) !== 403) throw error
    }
    // Declaring takes the configure permission; a passive check of the operator's exchange does not.
    const checking = await model.createConfirmChannel()
    checking.on('error', () => undefined)
    try {
      await checking.checkExchange(exchange)
      return checking
    } catch (error) {
      throw refusal(
        `exchange ${exchange} does not exist and the user may not declare it (it lacks the configure permission)`,
        error,
      )
    }
  }

  async publish(events: readonly LinkdeskEvent[], attempt: number): Promise<void> {
    for (const event of events) {
      this.channel.publish(this.exchange, routingKey(event), Buffer.from(JSON.stringify(event)), {
        persistent: true,
        contentType: 'application/json',
        messageId: event.event_id,
        type: event.event,
        appId: 'linkdesk',
        timestamp: Number(event.timestamp),
        headers: {
          [SINK_HEADERS.event]: event.event,
          [SINK_HEADERS.eventId]: event.event_id,
          [SINK_HEADERS.instanceId]: event.instance_id,
          [SINK_HEADERS.attempt]: attempt,
        },
      })
    }
    // Publisher confirms: the broker has taken every message (persisted, for durable queues) or refused one.
    try {
      await this.channel.waitForConfirms()
    } catch (error) {
      const why = this.closedBecause
      if (replyCode(why) === 403)
        throw refusal(
          `the user may not publish to exchange ${this.exchange} (it lacks the write permission)`,
          why,
        )
      if (replyCode(why) === 404) throw refusal(`exchange ${this.exchange} does not exist`, why)
      throw why ?? error
    }
  }

  async close(): Promise<void> {
    this.broken = true
    await this.model.close().catch(() => undefined)
  }
}
