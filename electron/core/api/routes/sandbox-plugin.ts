import type { FastifyInstance } from 'fastify'
import { registerSandboxRoutes, type SandboxControl } from '../../sandbox'
import type { RoutePlugin } from '../build-api'

/** Mounts the in-process sandbox's control API under `{prefix}/sandbox`, behind the same token auth as v1. */
export function sandboxRoutesPlugin(control: SandboxControl): RoutePlugin {
  return (app, { prefix }) => {
    void app.register(
      async (scoped: FastifyInstance) => {
        scoped.addHook('onRoute', (route) => {
          route.config = { ...route.config, auth: 'token' }
        })
        registerSandboxRoutes(scoped, control)
      },
      { prefix: `${prefix}/sandbox` },
    )
  }
}
