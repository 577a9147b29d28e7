import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { Ajv } from 'ajv'
import { parse } from 'yaml'

const root = fileURLToPath(new URL('../..', import.meta.url))
/** The parts of the configuration these tests read; the schema test checks the whole. */
interface BuilderConfig {
  productName: string
  files: string[]
  asarUnpack: string[]
  linux: { target: string[]; icon: string }
  mac: { target: string; icon: string }
  win: { target: string; icon: string }
}

const config = parse(readFileSync(join(root, 'electron-builder.yml'), 'utf8')) as BuilderConfig

function pngSize(path: string): { width: number; height: number } {
  // A PNG starts with its 8-byte signature and the IHDR chunk: width and height are its first two fields.
  const bytes = readFileSync(join(root, path))
  assert.equal(bytes.toString('latin1', 12, 16), 'IHDR', `${path} is not a PNG`)
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}

test("electron-builder.yml is valid against electron-builder's own configuration schema", () => {
  const schemaPath = createRequire(import.meta.url).resolve('app-builder-lib/scheme.json')
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as object
  const validate = new Ajv({ allErrors: true, strict: false }).compile(schema)
  const valid = validate(config)
  assert.equal(valid, true, JSON.stringify(validate.errors, null, 2))
})

test('the package targets Linux (AppImage, deb), macOS (dmg) and Windows (nsis)', () => {
  assert.equal(config.productName, 'Linkdesk')
  assert.deepEqual(config.linux.target, ['AppImage', 'deb'])
  assert.equal(config.mac.target, 'dmg')
  assert.equal(config.win.target, 'nsis')
})

test('every icon the package and the tray use exists in resources/ at the size its platform needs', () => {
  assert.deepEqual(pngSize(config.mac.icon), { width: 512, height: 512 })
  assert.deepEqual(pngSize(config.win.icon), { width: 256, height: 256 })
  assert.deepEqual(pngSize(join(config.linux.icon, '256x256.png')), { width: 256, height: 256 })
  for (const [name, size] of [
    ['tray.png', 16],
    ['tray@2x.png', 32],
    ['trayTemplate.png', 16],
    ['trayTemplate@2x.png', 32],
  ] as const) {
    assert.deepEqual(pngSize(join('resources/tray', name)), { width: size, height: size }, name)
  }
})

test('the built app the package takes is where package.json says the main entry is', () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { main: string }
  assert.equal(pkg.main, 'out/main/index.js')
  assert.ok(config.files.includes('out/**'))
})

test('native modules are unpacked from the asar archive so they can load', () => {
  const unpacked = config.asarUnpack
  for (const pattern of ['node_modules/lmdb/**', 'node_modules/@lmdb/**', '**/*.node']) {
    assert.ok(unpacked.includes(pattern), pattern)
  }
})
