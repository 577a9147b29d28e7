import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'
import { RENDERER_DEFINES } from './build-defines'

const root = fileURLToPath(new URL('.', import.meta.url))

/** The UI's build: relative asset paths so the same files load from the core's server and from a packaged app. */
export default defineConfig({
  root,
  base: './',
  plugins: [react()],
  define: RENDERER_DEFINES,
  build: {
    outDir: fileURLToPath(new URL('dist', import.meta.url)),
    emptyOutDir: true,
  },
  server: {
    // `vite --config renderer/vite.config.ts` during UI work: the API comes from a running `npm run serve`.
    proxy: { '/api': `http://127.0.0.1:${process.env.LINKDESK_PORT ?? '8686'}` },
  },
})
