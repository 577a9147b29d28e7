import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { InstanceSummary } from '../../api/types'
import { instanceLabel } from './instance-label'

const base = {
  instance_id: 'ABCDEF0123456789ABCDEF01',
  name: null,
  account: null,
} as unknown as InstanceSummary
const account = { id: '1@s.whatsapp.net', number: '15551234567', name: 'Alice', avatar: '' }

test('an instance reads as its operator’s name, then its account, or as unlinked', () => {
  assert.equal(instanceLabel(base), 'Unlinked instance ABCDEF…')
  assert.equal(instanceLabel({ ...base, account }), 'Alice (+15551234567)')
  assert.equal(instanceLabel({ ...base, name: 'Sales', account }), 'Sales: Alice (+15551234567)')
  assert.equal(instanceLabel({ ...base, name: 'Sales' }), 'Sales: Unlinked instance ABCDEF…')
})
