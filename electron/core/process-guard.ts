import type { Logger } from './logger'

/**
 * Logs a promise rejection that nothing handled, instead of letting Node end the process (its default).
 * Every write whose failure matters is handled where it is made (store/write-batch.ts), so a rejection that
 * reaches this point is a bug in some background task: its work is over and left nothing half-done in memory,
 * while ending the process would cut every account's connection and every request in flight. Uncaught
 * exceptions keep Node's default (exit): one thrown in the middle of synchronous code may leave state half
 * updated, and what is durable (credentials, journaled events, the outbox) is picked up by the next start.
 * Answers a function that removes the handler.
 */
export function logUnhandledRejections(logger: Logger): () => void {
  const log = (reason: unknown) =>
    logger.error({ err: reason }, 'unhandled promise rejection (a bug): logged, the process carries on')
  process.on('unhandledRejection', log)
  return () => process.off('unhandledRejection', log)
}
