import type { FastifyInstance } from 'fastify'
import { registerSandboxRoutes, SandboxError, type SandboxControl } from '@linkdesk/sandbox'
import { AppError } from '../../errors'
import type { RoutePlugin } from '../build-api'
import type { RouteDoc } from '../openapi-route'

/** The sandbox's error as the app's: the sandbox answers with codes of the app's table. */
export function fromSandboxError(error: SandboxError): AppError {
  return new AppError(error.code, error.message, { cause: error.cause })
}

/**
 * A sandbox control route in the API's document: the sandbox package declares its routes' bodies in its
 * own README, so the document names each route, its path parameters and the success envelope.
 */
function sandboxRouteDoc(url: string): RouteDoc {
  const names = [...url.matchAll(/:(\w+)/g)].map((match) => match[1]!)
  return {
    tag: 'Sandbox',
    summary: `Sandbox control: ${url.replace(/^.*\/sandbox/, '')}`,
    description:
      'Served with --sandbox only: drives the simulated network (see the sandbox package’s README for its parameters and answers).',
    params: Object.fromEntries(
      names.map((name) => [name, name === 'phone' ? 'A simulated account’s number.' : 'A group id.']),
    ),
    answer: { json: {} },
  }
}

/** Mounts the in-process sandbox's control API under `{prefix}/sandbox`, behind the same token auth as v1. */
export function sandboxRoutesPlugin(control: SandboxControl): RoutePlugin {
  return (app, { prefix }) => {
    void app.register(
      async (scoped: FastifyInstance) => {
        scoped.addHook('onRoute', (route) => {
          route.config = { ...route.config, auth: 'token', openapi: sandboxRouteDoc(route.url) }
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
