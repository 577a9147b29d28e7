// Draws Linkdesk's logo (two chain links on a rounded green square) into resources/ as PNGs:
// the app icons electron-builder packages, the tray icons the desktop shell shows, and the UI's favicon.
// Run `node scripts/make-icons.mjs` after changing the drawing; the PNGs are committed.
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { PNG } from 'pngjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const SUPERSAMPLE = 4

/** Signed distance from p to a box centred at the origin with half sizes hx, hy and corner radius r. */
function roundedBox(x, y, hx, hy, r) {
  const qx = Math.abs(x) - hx + r
  const qy = Math.abs(y) - hy + r
  const outside = Math.hypot(Math.max(qx, 0), Math.max(qy, 0))
  return outside + Math.min(Math.max(qx, qy), 0) - r
}

/** Distance to a chain link: the outline of a pill laid along the 45° diagonal, centred at (cx, cy). */
function link(x, y, cx, cy) {
  const c = Math.SQRT1_2
  const dx = x - cx
  const dy = y - cy
  const u = dx * c - dy * c
  const v = dx * c + dy * c
  return Math.abs(roundedBox(u, v, 0.2, 0.105, 0.105)) - 0.035
}

/** Distance to the glyph: two links overlapping in the middle of the square. */
function glyph(x, y) {
  return Math.min(link(x, y, 0.4, 0.6), link(x, y, 0.6, 0.4))
}

const background = (x, y) => roundedBox(x - 0.5, y - 0.5, 0.46, 0.46, 0.2)

/** The background's colour: a diagonal gradient from green to teal. */
function backgroundColour(x, y) {
  const t = (x + y) / 2
  return [
    Math.round(0x22 + (0x0e - 0x22) * t),
    Math.round(0xa8 + (0x7c - 0xa8) * t),
    Math.round(0x6b + (0x8f - 0x6b) * t),
  ]
}

/**
 * Renders one image: each pixel is the average of SUPERSAMPLE² samples, so edges are smooth.
 * `paint(x, y)` returns [r, g, b, a] (0..255) for a point in the unit square, or null for transparent.
 */
function render(size, paint) {
  const png = new PNG({ width: size, height: size })
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let r = 0
      let g = 0
      let b = 0
      let a = 0
      for (let sy = 0; sy < SUPERSAMPLE; sy++) {
        for (let sx = 0; sx < SUPERSAMPLE; sx++) {
          const colour = paint((px + (sx + 0.5) / SUPERSAMPLE) / size, (py + (sy + 0.5) / SUPERSAMPLE) / size)
          if (!colour) continue
          const alpha = colour[3] / 255
          r += colour[0] * alpha
          g += colour[1] * alpha
          b += colour[2] * alpha
          a += alpha
        }
      }
      const i = (py * size + px) * 4
      const samples = SUPERSAMPLE * SUPERSAMPLE
      png.data[i] = a ? Math.round(r / a) : 0
      png.data[i + 1] = a ? Math.round(g / a) : 0
      png.data[i + 2] = a ? Math.round(b / a) : 0
      png.data[i + 3] = Math.round((a / samples) * 255)
    }
  }
  return PNG.sync.write(png)
}

/** The full-colour logo: white links on the gradient square. */
function logo(x, y) {
  if (background(x, y) > 0) return null
  if (glyph(x, y) <= 0) return [255, 255, 255, 255]
  return [...backgroundColour(x, y), 255]
}

/** macOS template image: the links alone in black; the system tints them for light and dark menu bars. */
function template(x, y) {
  const scale = 1.35
  return glyph(0.5 + (x - 0.5) * scale, 0.5 + (y - 0.5) * scale) <= 0 ? [0, 0, 0, 255] : null
}

const outputs = [
  ['resources/icons/512x512.png', 512, logo],
  ['resources/icons/256x256.png', 256, logo],
  ['resources/tray/tray.png', 16, logo],
  ['resources/tray/tray@2x.png', 32, logo],
  ['resources/tray/trayTemplate.png', 16, template],
  ['resources/tray/trayTemplate@2x.png', 32, template],
  ['renderer/public/favicon.png', 64, logo],
]

for (const [path, size, paint] of outputs) {
  const file = join(root, path)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, render(size, paint))
  console.log(`${path} (${size}x${size})`)
}
