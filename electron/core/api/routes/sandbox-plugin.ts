import type { FastifyInstance } from 'fastify'
import { registerSandboxRoutes, SandboxError, type SandboxControl } from '@linkdesk/sandbox'
import { AppError } from '../../errors'
import type { RoutePlugin } from '../build-api'

/** The sandbox's error as the app's: the sandbox answers with codes of the app's table. */
export function fromSandboxError(error: SandboxError): AppError {
  return new AppError(error.code, error.message, { cause: error.cause })
}

/** Mounts the in-process sandbox's control API under `{prefix}/sandbox`, behind the same token auth as v1. */
export function sandboxRoutesPlugin(control: SandboxControl): RoutePlugin {
  return (app, { prefix }) => {
    void app.register(
      async (scoped: FastifyInstance) => {
        scoped.addHook('onRoute', (route) => {
          route.config = { ...route.config, auth: 'token' }
        })
        // Handed on to the app's error handler, which answers with the app's envelope.
        scoped.setErrorHandler((error) => {
          throw error instanceof SandboxError ? fromSandboxError(error) : error
        })
        registerSandboxRoutes(scoped, control)
      },
      { prefix: `${prefix}/sandbox` },
    )
  }
}
