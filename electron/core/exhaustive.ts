/**
 * Ends a switch over a union that has a case for every member: a member added to the union without its own
 * case no longer compiles, instead of falling through at run time.
 */
export function unhandledCase(value: never, what: string): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`)
}
