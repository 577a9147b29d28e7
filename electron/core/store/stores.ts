import type { StoreChoice } from '../config'
import type { OpenStores, StoreOptions, Stores } from './backend'
import { openStores as openLmdb } from './lmdb'
import { openStores as openPostgres, type PostgresOptions } from './postgres'

/** Every backend, by the kind of store it is chosen by: a new backend is its folder and one entry here. */
const BACKENDS: { [K in StoreChoice['kind']]: OpenStores<K, PostgresOptions> } = {
  lmdb: openLmdb,
  postgres: openPostgres,
}

/** Opens the chosen store (for PostgreSQL, its schema first brought up to this version). */
export function openStores(choice: StoreChoice, options: StoreOptions & PostgresOptions): Promise<Stores> {
  const open = BACKENDS[choice.kind] as OpenStores<StoreChoice['kind'], PostgresOptions>
  return open(choice, options)
}
