import { AppError } from '../../errors'
import type { LocationInfo } from '../message'
import type { KindModule, SendParams } from './kind-module'

/** A place to send. */
export interface LocationContent {
  kind: 'location'
  latitude: number
  longitude: number
  name?: string
  address?: string
}

/** A place as the protocol states it (a live location has no name or address). */
interface ProtocolLocation {
  degreesLatitude?: number | null
  degreesLongitude?: number | null
  name?: string | null
  address?: string | null
}

function locationOf(location: ProtocolLocation): { location: LocationInfo } {
  return {
    location: {
      latitude: location.degreesLatitude ?? 0,
      longitude: location.degreesLongitude ?? 0,
      name: location.name ?? null,
      address: location.address ?? null,
    },
  }
}

/** Degrees on Earth: refused with 422 when out of range, as a place that cannot exist. */
function checkCoordinates(latitude: number, longitude: number): void {
  if (Math.abs(latitude) > 90 || Math.abs(longitude) > 180) {
    throw new AppError(
      'invalid_location',
      `latitude must be from -90 to 90 and longitude from -180 to 180 (got ${latitude}, ${longitude}).`,
      { details: { parameter: Math.abs(latitude) > 90 ? 'latitude' : 'longitude' } },
    )
  }
}

/** A place (`type=location`): its degrees, with an optional name and address. */
export const LOCATION_KIND: KindModule = {
  name: 'location',
  reads: {
    locationMessage: { type: 'location', read: locationOf },
    liveLocationMessage: { type: 'location', read: locationOf },
  },
  writes: {
    location: {
      write: ({ latitude, longitude, name, address }: LocationContent) => ({
        location: { degreesLatitude: latitude, degreesLongitude: longitude, name, address },
      }),
      answer: 'whole',
    },
  },
  send: {
    type: 'location',
    example: {
      summary: 'A location',
      params: {
        type: 'location',
        latitude: -33.8568,
        longitude: 151.2153,
        location_name: 'Opera House',
        address: 'Sydney',
      },
    },
    fields: {
      latitude: {
        type: 'number',
        description: 'For `location`: decimal degrees, -90 to 90.',
        example: 48.8584,
        types: ['location'],
      },
      longitude: {
        type: 'number',
        description: 'For `location`: decimal degrees, -180 to 180.',
        example: 2.2945,
        types: ['location'],
      },
      location_name: {
        type: 'string',
        maxLength: 256,
        description: 'For `location`: the name of the place.',
        example: 'Eiffel Tower',
        types: ['location'],
      },
      address: {
        type: 'string',
        maxLength: 512,
        description: 'For `location`: its address.',
        example: 'Champ de Mars, Paris',
        types: ['location'],
      },
    },
    required: ['latitude', 'longitude'],
    validate: (params) => checkCoordinates(params.latitude as number, params.longitude as number),
    build: async (params: SendParams): Promise<LocationContent> => ({
      kind: 'location',
      latitude: params.latitude as number,
      longitude: params.longitude as number,
      name: params.location_name as string | undefined,
      address: params.address as string | undefined,
    }),
    fingerprint: (params) => ({
      before: {
        latitude: params.latitude,
        longitude: params.longitude,
        locationName: params.location_name,
        address: params.address,
      },
    }),
  },
  forms: {
    composer: {
      kind: 'location',
      label: 'Location',
      fields: [
        {
          name: 'latitude',
          param: 'latitude',
          value: 'number',
          label: 'Latitude',
          input: 'decimal',
          required: true,
          trim: true,
          placeholder: '-33.8568',
        },
        {
          name: 'longitude',
          param: 'longitude',
          value: 'number',
          label: 'Longitude',
          input: 'decimal',
          required: true,
          trim: true,
          placeholder: '151.2153',
        },
        {
          name: 'locationName',
          param: 'location_name',
          value: 'text',
          label: 'Place name (optional)',
          input: 'text',
        },
        { name: 'address', param: 'address', value: 'text', label: 'Address (optional)', input: 'text' },
      ],
    },
    sandbox: {
      kind: 'location',
      label: 'Location',
      fields: [
        {
          name: 'latitude',
          param: 'location.latitude',
          value: 'number',
          label: 'Latitude',
          input: 'decimal',
          required: true,
        },
        {
          name: 'longitude',
          param: 'location.longitude',
          value: 'number',
          label: 'Longitude',
          input: 'decimal',
          required: true,
        },
        {
          name: 'placeName',
          param: 'location.name',
          value: 'text',
          label: 'Place name (optional)',
          input: 'text',
        },
      ],
    },
  },
  summary: { shows: 'place', field: 'location', label: 'location' },
}
