// The layers of the app, enforced on every import (type imports included): a file's place says what it may
// use. README "Layout" draws the same picture. Tests and test helpers may reach anything: they assemble the
// stack they test.
import boundaries from 'eslint-plugin-boundaries'

const CORE = 'electron/core'

/**
 * Each zone with the zones it may import (besides itself). Read from the top: the contract, then the
 * services, then the adapters, then the composition root and the shells. A zone only ever names zones above
 * it in this table, so no two zones import each other.
 */
const ZONES = {
  // 1. The kernel files beside the entry, and the contract: ids, message kinds, the event catalogue,
  //    instance states and records, the ports the adapters implement.
  kernel: ['logger'],
  logger: [],
  contract: ['kernel', 'logger', 'sandbox-protocol'],
  config: ['kernel', 'logger', 'contract'],
  'store-ports': ['kernel', 'logger', 'config', 'contract'],
  // 2. The services: what Linkdesk does, in its own words.
  tokens: ['kernel', 'logger', 'store-ports'],
  groups: ['kernel', 'logger', 'config', 'contract'],
  instances: ['kernel', 'logger', 'config', 'contract', 'store-ports'],
  events: ['kernel', 'logger', 'config', 'contract', 'store-ports', 'instances'],
  messages: ['kernel', 'logger', 'config', 'contract', 'store-ports', 'groups', 'sandbox-protocol'],
  // 3. The adapters: the network (Baileys), the two stores, the cluster, HTTP.
  wa: ['kernel', 'logger', 'config', 'contract', 'store-ports', 'sandbox-protocol'],
  'store-lmdb': ['kernel', 'logger', 'config', 'contract', 'store-ports'],
  'store-postgres': ['kernel', 'logger', 'config', 'contract', 'store-ports'],
  'store-choice': ['kernel', 'logger', 'config', 'contract', 'store-ports', 'store-lmdb', 'store-postgres'],
  cluster: ['kernel', 'logger', 'config', 'contract', 'store-postgres'],
  api: [
    ...['kernel', 'logger', 'config', 'contract', 'store-ports'],
    ...['tokens', 'groups', 'instances', 'events', 'messages', 'sandbox', 'shared-types'],
  ],
  // 4. The composition root builds everything; the window's type names may name any answer's shape.
  entry: ['*'],
  'shared-types': ['*', '!api', '!entry'],
  shells: ['entry', 'config', 'logger'],
  // The sandbox is a package of its own: it shares with the app only the protocol module.
  sandbox: ['sandbox-protocol'],
  'sandbox-protocol': [],
}

/** The folders of the zones; the files beside the entry, and the store's chooser, are told apart by file. */
const FOLDERS = [
  { type: 'sandbox-protocol', pattern: 'packages/sandbox/src/protocol' },
  { type: 'sandbox', pattern: 'packages/sandbox' },
  { type: 'contract', pattern: `${CORE}/contract` },
  { type: 'store-lmdb', pattern: `${CORE}/store/lmdb` },
  { type: 'store-postgres', pattern: `${CORE}/store/postgres` },
  ...['tokens', 'groups', 'instances', 'events', 'messages', 'wa', 'cluster', 'api'].map((type) => ({
    type,
    pattern: `${CORE}/${type}`,
  })),
  { type: 'store', pattern: `${CORE}/store` },
  { type: 'core', pattern: CORE },
  { type: 'shells', pattern: 'electron/{main,preload,headless}' },
].map((element) => ({ ...element, partialMatch: false }))

const FILES = [
  { category: 'store-choice', pattern: `${CORE}/store/{stores,copy-to-postgres}.ts` },
  { category: 'store-ports', pattern: `${CORE}/store/!(stores|copy-to-postgres).ts` },
  { category: 'entry', pattern: `${CORE}/index.ts` },
  { category: 'config', pattern: `${CORE}/config.ts` },
  { category: 'logger', pattern: `${CORE}/logger.ts` },
  { category: 'shared-types', pattern: `${CORE}/shared-types.ts` },
  { category: 'kernel', pattern: `${CORE}/!(index|config|logger|shared-types).ts` },
]

/** How a zone is selected: its folder, or the folder and the file's category. */
function selector(zone) {
  const file = FILES.find((entry) => entry.category === zone)
  if (!file) return { element: { type: zone } }
  return { element: { type: zone.startsWith('store-') ? 'store' : 'core' }, file: { categories: zone } }
}

/** Packages only one zone may import: the network library, each store's driver, Electron. */
const PACKAGES = [
  { name: '@whiskeysockets/baileys', only: ['wa', 'sandbox'], why: 'Baileys stays behind the wa adapter.' },
  { name: 'libsignal', only: ['wa', 'sandbox'], why: 'the Signal protocol is the network adapter’s.' },
  { name: 'lmdb', only: ['store-lmdb', 'sandbox'], why: 'the LMDB driver is the LMDB store’s.' },
  { name: 'pg', only: ['store-postgres'], why: 'the PostgreSQL driver is the PostgreSQL store’s.' },
  { name: 'node-pg-migrate', only: ['store-postgres'], why: 'migrations are the PostgreSQL store’s.' },
  { name: 'electron', only: ['shells'], why: 'the core runs in plain Node.' },
]

const allZones = Object.keys(ZONES)

const policies = [
  ...Object.entries(ZONES).flatMap(([zone, may]) => {
    const refused = may.includes('*')
      ? may.filter((item) => item.startsWith('!')).map((item) => item.slice(1))
      : allZones.filter((other) => other !== zone && !may.includes(other))
    return refused.map((other) => ({ from: selector(zone), disallow: { to: selector(other) } }))
  }),
  ...PACKAGES.flatMap(({ name, only }) =>
    allZones
      .filter((zone) => !only.includes(zone))
      .map((zone) => ({
        from: selector(zone),
        disallow: { to: { module: { origin: 'external', source: [name, `${name}/**`] } } },
      })),
  ),
]

export const layers = {
  files: ['electron/**/*.ts', 'packages/**/*.ts'],
  ignores: ['**/*.test.ts', '**/testing/**'],
  plugins: { boundaries },
  settings: {
    'import/resolver': { typescript: { alwaysTryTypes: true, project: 'tsconfig.json' } },
    'boundaries/elements': FOLDERS,
    'boundaries/files': FILES,
  },
  rules: {
    'boundaries/dependencies': [
      'error',
      {
        default: 'allow',
        checkAllOrigins: true,
        checkInternals: true,
        policies,
        message:
          'A file of {{from.type}} may not import {{#if to.type}}{{to.type}}{{else}}{{to.source}}{{/if}}: see README "Layout".',
      },
    ],
  },
}
