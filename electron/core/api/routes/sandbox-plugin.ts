import type { FastifyInstance } from 'fastify'
import {
  type ControlRouteDoc,
  registerSandboxRoutes,
  SandboxError,
  type SandboxControl,
} from '@linkdesk/sandbox'
import { AppError } from '../../errors'
import type { RoutePlugin } from '../build-api'
import type { RouteDoc } from '../openapi-route'

/** The sandbox's error as the app's: the sandbox answers with codes of the app's table. */
export function fromSandboxError(error: SandboxError): AppError {
  return new AppError(error.code, error.message, { cause: error.cause })
}

/**
 * A sandbox control route in the API's document, from the declaration the sandbox registers it with: its path
 * parameters, its body and its answer are the schemas the sandbox validates and answers with.
 */
function sandboxRouteDoc(url: string, control: ControlRouteDoc | undefined): RouteDoc {
  if (!control) throw new Error(`The sandbox route ${url} is registered without its declaration.`)
  return {
    tag: 'Sandbox',
    summary: control.summary,
    description: 'Served with --sandbox only: drives the simulated network (see docs/sandbox.md).',
    ...(control.params ? { params: control.params } : {}),
    ...(control.body
      ? { body: { schema: control.body, description: 'The parameters, as JSON or a form.' } }
      : {}),
    answer: { schema: control.answer, description: 'Success.' },
  }
}

/** Mounts the in-process sandbox's control API under `{prefix}/sandbox`, behind the same token auth as v1. */
export function sandboxRoutesPlugin(control: SandboxControl): RoutePlugin {
  return (app, { prefix }) => {
    void app.register(
      async (scoped: FastifyInstance) => {
        scoped.addHook('onRoute', (route) => {
          route.config = {
            ...route.config,
            auth: 'token',
            openapi: sandboxRouteDoc(route.url, route.config?.control),
          }
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
