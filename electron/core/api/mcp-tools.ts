import { holdsScope, type Principal, type Scope } from '../contract/principal'
import { fieldSchema, successSchema } from './openapi'
import { eventComponents } from './openapi-events'
import type { Operation } from './operation'
import { OPERATION_SCOPES } from './scopes'

type JsonSchema = Record<string, unknown>

/**
 * The operations that remove or undo something that cannot be had back (an instance, its credentials, a
 * message for everyone, a webhook and what it had not delivered, a token, a group membership, a contact's
 * reach): their tools say so to an agent's client (`destructiveHint`), which asks its user before calling.
 */
export const DESTRUCTIVE_OPERATIONS: ReadonlySet<string> = new Set([
  'destroy',
  'delete_instance',
  'reinitialize',
  'delete_message',
  'remove_webhook',
  'remove_sink',
  'leave_group',
  'group_participants',
  'block',
  'admin/tokens/revoke',
  'clear_chat',
  'delete_chat',
  'delete_label',
])

/** An MCP tool made from an operation: what `tools/list` shows, and the operation it calls. */
export interface McpTool {
  operation: string
  scope: Scope
  definition: {
    name: string
    title: string
    description: string
    inputSchema: JsonSchema
    outputSchema: JsonSchema
    annotations: { readOnlyHint: boolean; destructiveHint: boolean }
  }
}

/** `admin/tokens/create` → `admin_tokens_create`: MCP tool names are letters, digits, `_`, `-` and `.`. */
export function toolName(operation: string): string {
  return operation.replace(/[^A-Za-z0-9_.-]/g, '_')
}

/**
 * One tool per operation a script may call with a token, from its declaration as the OpenAPI document states
 * it: its parameters (a file part excepted: media comes by URL) are the input, its success body the output.
 */
export function mcpTools(operations: readonly Operation[]): McpTool[] {
  return operations
    .filter((operation) => operation.auth === 'token')
    .map((operation) => {
      const scope = OPERATION_SCOPES[operation.name] ?? 'admin'
      const fields = Object.entries(operation.fields).filter(([, spec]) => spec.type !== 'file')
      const required = fields.filter(([, spec]) => spec.required).map(([name]) => name)
      const inputSchema: JsonSchema = {
        type: 'object',
        properties: Object.fromEntries(fields.map(([name, spec]) => [name, fieldSchema(spec)])),
        ...(required.length > 0 ? { required } : {}),
      }
      const description = [operation.summary, operation.description].filter(Boolean).join('\n\n')
      return {
        operation: operation.name,
        scope,
        definition: {
          name: toolName(operation.name),
          title: operation.summary,
          description,
          inputSchema,
          outputSchema: selfContained(operation),
          annotations: {
            readOnlyHint: scope === 'read',
            destructiveHint: DESTRUCTIVE_OPERATIONS.has(operation.name),
          },
        },
      }
    })
}

/** The tools the caller's scopes allow. */
export function toolsFor(tools: readonly McpTool[], principal: Principal): McpTool[] {
  return tools.filter((tool) => holdsScope(principal, tool.scope))
}

/**
 * The success body's schema as the document states it, with the shared schemas it names (the events' among
 * them) carried along as `$defs`: a tool's schema stands alone, as MCP clients validate it.
 */
function selfContained(operation: Operation): JsonSchema {
  const components: Record<string, JsonSchema> = {}
  const schema = successSchema(operation.answer, components)
  const shared: Record<string, unknown> = { ...eventComponents(), ...components }
  const defs: Record<string, unknown> = {}
  const pending = referencedNames(schema)
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (name in defs || !(name in shared)) continue
    defs[name] = shared[name]
    pending.push(...referencedNames(shared[name]))
  }
  const text = JSON.stringify(Object.keys(defs).length > 0 ? { ...schema, $defs: defs } : schema)
  return JSON.parse(text.replaceAll('"#/components/schemas/', '"#/$defs/')) as JsonSchema
}

/** The component names a schema refers to. */
function referencedNames(schema: unknown): string[] {
  return [...JSON.stringify(schema).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((match) => match[1]!)
}
