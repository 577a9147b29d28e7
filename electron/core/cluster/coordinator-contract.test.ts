import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Coordinator } from '../contract/coordination'
import { joinedClusterNode } from '../testing/cluster-node'
import { postgresSuite } from '../testing/postgres-server'
import { Cluster } from './cluster'
import { SingleNode } from './single-node'

/**
 * What every part may count on from any coordinator, whichever the deployment: `make` gives a node that joined.
 */
function coordinatorContract(make: () => Coordinator): void {
  test('a new instance placed here may be acted for, written for and is answered here', async () => {
    const node = make()
    assert.deepEqual(await node.placeNew(true), { kind: 'here' }, 'one forwarded by a peer stays here')
    await node.adoptNew('I-new')
    assert.equal(node.mayAct('I-new'), true)
    assert.equal(node.holds('I-new'), true)
    assert.equal(node.mayRun(node.partitionOf('I-new')), true, 'its share of shared work runs here')
    assert.deepEqual(await node.route('I-new', false), { kind: 'here' })
    for (const claim of node.fence.claims(['I-new'])) assert.equal(claim.instance_id, 'I-new')
  })

  test('of the instances linked at start, a node restores only some of them itself', () => {
    const linked = ['I-a', 'I-b']
    for (const id of make().restoredHere(linked)) assert.ok(linked.includes(id))
  })

  test('no key is vouched for but the one this node forwards with, and never an empty one', () => {
    const node = make()
    assert.equal(node.vouchesFor(''), false)
    assert.equal(node.vouchesFor('not the key'), false)
    if (node.forwardKey !== '') assert.equal(node.vouchesFor(node.forwardKey), true)
  })

  test('an announcement of committed events reaches this node', async () => {
    const node = make()
    const heard = new Promise<void>((resolve) => node.commits.onAnnounced(resolve))
    // A listener may start listening a moment after it is added: announce until heard, a few times at most.
    let announcing = true
    void (async () => {
      for (let round = 0; announcing && round < 50; round += 1) {
        node.commits.announce()
        await new Promise((resolve) => setTimeout(resolve, 40))
      }
    })()
    await heard
    announcing = false
  })

  test('health names this node when it has a name, and its metrics are well formed', async () => {
    const node = make()
    const health = await node.health()
    if (node.nodeId === undefined) assert.equal(health, undefined)
    else assert.equal(health?.node_id, node.nodeId)
    for (const family of node.metricsProvider().collect()) {
      assert.match(family.name, /^linkdesk_/)
      for (const sample of family.samples) assert.equal(typeof sample.value, 'number')
    }
  })

  test('a destroyed instance is let go of without error', async () => {
    const node = make()
    await node.adoptNew('I-gone')
    await node.dropped('I-gone')
  })
}

describe('the single-node coordinator', () => {
  // Joining is nothing to a node alone: it acts at once.
  coordinatorContract(() => new SingleNode())
})

postgresSuite('the cluster coordinator', (pool) => {
  let node: Cluster | undefined
  before(async () => {
    node = await joinedClusterNode(pool())
  })
  after(async () => {
    await node?.drain()
  })
  coordinatorContract(() => {
    if (!node) throw new Error('the cluster node has not joined')
    return node
  })
})
