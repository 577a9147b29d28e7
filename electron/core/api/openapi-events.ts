import { EVENT_CATALOGUE, EVENT_NAMES } from '../contract/event-catalogue'
import type { TSchema } from '../schema'
import { eventSchemaName, openApiSchema } from './openapi-schema'

/**
 * The OpenAPI components that describe the events (webhook bodies, live-stream frames, event-log entries):
 * one envelope schema per event of the catalogue, with its sample, and `Event`, any one of them.
 */
export function eventComponents(): Record<string, unknown> {
  const perEvent = Object.fromEntries(
    EVENT_NAMES.map((name) => {
      const spec = EVENT_CATALOGUE[name]
      return [
        eventSchemaName(name),
        {
          type: 'object',
          description: spec.description,
          required: ['event', 'event_id', 'instance_id', 'timestamp', 'data'],
          properties: {
            event: { type: 'string', enum: [name] },
            event_id: { type: 'string', description: 'A ULID: unique, sorts by time.' },
            instance_id: { type: 'string' },
            instance_name: {
              type: ['string', 'null'],
              description: 'The instance’s name when the event was made (null: none given).',
            },
            timestamp: { type: 'string', description: 'Unix seconds, as a string.' },
            data: openApiSchema(spec.data as TSchema),
          },
          example: {
            event: name,
            event_id: '01JDQ8W6Z3N4V0Y1T2R5S7K9XA',
            instance_id: '1FFD9618F8278E0830973068',
            instance_name: 'Sales',
            timestamp: '1795253914',
            data: spec.example,
          },
        },
      ]
    }),
  )
  return {
    Event: {
      description:
        'Every event: POSTed to the instance’s webhook, sent on GET /stream and listed by `events`. ' +
        `Names: ${EVENT_NAMES.join(', ')}.`,
      oneOf: EVENT_NAMES.map((name) => ({ $ref: `#/components/schemas/${eventSchemaName(name)}` })),
      discriminator: {
        propertyName: 'event',
        mapping: Object.fromEntries(
          EVENT_NAMES.map((name) => [name, `#/components/schemas/${eventSchemaName(name)}`]),
        ),
      },
    },
    ...perEvent,
  }
}
