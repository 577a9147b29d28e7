// Runs every *.test.ts under electron/, packages/, renderer/ and bench/ (or the files and folders given) with
// node's test runner. With --store-fixtures first, only the test files that run on the store fixtures: those
// whose imports reach electron/core/testing/test-store.ts (the fixtures that follow LINKDESK_TEST_STORE), but
// not those that import testing/backends.ts or testing/postgres-server.ts themselves (they choose their
// backends, PostgreSQL included, in every pass). npm run test:postgres runs them once more on PostgreSQL that
// way, so a test written on the fixtures runs on both stores without being listed anywhere.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const roots = ['electron', 'packages', 'renderer', 'bench']
const skip = new Set(['node_modules', 'dist', 'out'])
const STORE_FIXTURES = resolve('electron/core/testing/test-store.ts')
const OWN_BACKENDS = ['backends.ts', 'postgres-server.ts'].map((name) =>
  resolve('electron/core/testing', name),
)

function findTests(dir) {
  let found = []
  for (const name of readdirSync(dir)) {
    if (skip.has(name)) continue
    const path = join(dir, name)
    if (statSync(path).isDirectory()) found = found.concat(findTests(path))
    else if (name.endsWith('.test.ts')) found.push(path)
  }
  return found
}

/** The project files a TypeScript file imports (relative specifiers only: the fixtures are reached that way). */
function importsOf(file) {
  const source = readFileSync(file, 'utf8')
  const found = []
  for (const [, specifier] of source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)) {
    const base = resolve(dirname(file), specifier)
    const path = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), base].find(
      (candidate) => existsSync(candidate) && statSync(candidate).isFile(),
    )
    if (path) found.push(path)
  }
  return found
}

/** The test files among `tests` whose imports reach the store fixtures, directly or through other files. */
function onFixtures(tests) {
  const importers = new Map() // a file → the files that import it
  const walked = new Set()
  const pending = [...tests]
  while (pending.length > 0) {
    const file = pending.pop()
    if (walked.has(file)) continue
    walked.add(file)
    for (const imported of importsOf(file)) {
      if (!importers.has(imported)) importers.set(imported, [])
      importers.get(imported).push(file)
      pending.push(imported)
    }
  }
  const reaching = new Set([STORE_FIXTURES])
  const queue = [STORE_FIXTURES]
  while (queue.length > 0)
    for (const importer of importers.get(queue.pop()) ?? []) {
      if (reaching.has(importer)) continue
      reaching.add(importer)
      queue.push(importer)
    }
  return tests.filter(
    (file) => reaching.has(file) && !importsOf(file).some((imported) => OWN_BACKENDS.includes(imported)),
  )
}

const args = process.argv.slice(2)
const onStoreFixtures = args[0] === '--store-fixtures'
// Arguments are test files or folders (every test under them).
const given = (onStoreFixtures ? args.slice(1) : args).flatMap((path) =>
  statSync(path).isDirectory() ? findTests(path) : [path],
)
let files = given.length > 0 ? given.sort() : roots.flatMap((r) => findTests(r)).sort()
if (onStoreFixtures) {
  const chosen = new Set(onFixtures(files.map((file) => resolve(file))))
  files = files.filter((file) => chosen.has(resolve(file)))
}
if (process.env.LIST_TESTS) {
  for (const file of files) process.stdout.write(`${relative('.', file)}\n`)
  process.exit(0)
}
const result = spawnSync(
  process.execPath,
  // Baileys leaves long timers armed after a socket ends (a 30 s pre-key upload timer among them): once every
  // test has finished, exit instead of waiting for them.
  [
    '--import',
    'tsx',
    '--import',
    './scripts/renderer-defines.mjs',
    '--test',
    '--test-force-exit',
    '--test-concurrency=2',
    '--test-reporter=spec',
    ...files,
  ],
  { stdio: 'inherit' },
)
process.exit(result.status ?? 1)
