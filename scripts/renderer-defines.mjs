// The values the renderer's build puts into the bundle (renderer/build-defines.ts), as globals for the tests
// that run the window's modules in Node.
import { RENDERER_DEFINES } from '../renderer/build-defines.ts'

for (const [name, value] of Object.entries(RENDERER_DEFINES)) globalThis[name] = JSON.parse(value)
