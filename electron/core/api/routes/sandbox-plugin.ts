import type { FastifyInstance } from 'fastify'
import { registerSandboxRoutes, type SandboxControl } from '../../sandbox'
import { presentedToken } from '../auth'
import type { RoutePlugin } from '../build-api'
import { mergeRawParams } from '../params'

/** Mounts the in-process sandbox's control API under `{prefix}/sandbox`, behind the same token auth as v1. */
export function sandboxRoutesPlugin(control: SandboxControl): RoutePlugin {
  return (app, { auth, prefix }) => {
    void app.register(
      async (scoped: FastifyInstance) => {
        scoped.addHook('preHandler', async (request) => {
          auth.authenticate(presentedToken(request.headers, mergeRawParams(request.query, request.body)))
        })
        registerSandboxRoutes(scoped, control)
      },
      { prefix: `${prefix}/sandbox` },
    )
  }
}
