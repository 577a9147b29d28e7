import pino from 'pino'
import { defineTable, openSandboxState } from '../state/sandbox-state'
import { StoredList } from '../state/stored-list'

/**
 * Writes to a sandbox state until it is killed: in every round, a record in two tables and an item in a list,
 * all three in one event turn. Prints a line once writing is under way.
 */
const state = openSandboxState(process.argv[2] ?? '', pino({ level: 'silent' }))
const left = state.open(defineTable<{ round: number; padding: Buffer }>({ name: 'left' }))
const right = state.open(defineTable<{ round: number }>({ name: 'right' }))
const list = new StoredList<number>(state, 'rounds')
let round = list.size

function writeRound(): void {
  round++
  left.put(String(round).padStart(9, '0'), { round, padding: Buffer.alloc(2048, round % 256) })
  right.put(String(round).padStart(9, '0'), { round })
  list.push(round)
  if (round % 50 === 0) left.remove(String(round - 25).padStart(9, '0'))
  if (round % 50 === 0) right.remove(String(round - 25).padStart(9, '0'))
  setImmediate(writeRound)
}

writeRound()
setTimeout(() => process.stdout.write('writing\n'), 50)
