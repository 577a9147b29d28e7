import assert from 'node:assert/strict'
import { test } from 'node:test'
import { profileConfig, runScale } from '../../bench/harness/scale-run'
import { postgresMissing } from '../core/testing/postgres-server'

// The scale bench's short profile as CI runs it: 60 accounts over three nodes on one PostgreSQL, an outside
// sandbox and a webhook receiver; waves of traffic both ways, one node killed with kill -9 mid-wave and brought
// back. What it asserts is what cannot depend on the machine's speed: every message of every wave reaches the
// webhook under exactly one event id, every acknowledged send reaches the contact, and the dead node's accounts
// connect elsewhere. Its timings are the bench's figures (`npm run bench:scale`), not asserted here.
test(
  'the scale bench’s short profile: 60 accounts over 3 nodes, a node killed and back, nothing lost or duplicated',
  { skip: postgresMissing(), timeout: 1_200_000 },
  async (t) => {
    const config = profileConfig('short', {
      accounts: 60,
      durationMs: 150_000,
      waveMs: 30_000,
      faults: ['kill'],
      rebalanceWatchMs: 20_000,
      windowMs: 60_000,
      linkConcurrency: 6,
    })
    const report = await runScale(config, (line) => t.diagnostic(line))
    const kill = report.faults.find((fault) => fault.fault === 'kill')
    assert.ok(kill, 'the kill ran')
    assert.ok(Number(kill.figures.failover_count) > 0, 'the killed node held accounts')
    assert.equal(kill.figures.failover_missing, 0, 'every account of the killed node connected elsewhere')
    assert.ok(report.waves.length >= 4, `${report.waves.length} waves ran`)
    for (const wave of report.waves) {
      const at = `wave ${wave.wave + 1}`
      assert.equal(wave.incoming, config.accounts, `${at}: every account was sent its message`)
      assert.equal(wave.incomingLost, 0, `${at}: incoming messages that never reached the webhook`)
      assert.equal(wave.incomingDuplicated, 0, `${at}: incoming messages under two event ids`)
      assert.equal(wave.sendsNotDelivered, 0, `${at}: acknowledged sends missing from the contact's inbox`)
      assert.equal(wave.sendEventsMissing, 0, `${at}: acknowledged sends without a message.sent event`)
      assert.equal(wave.sendEventsDuplicated, 0, `${at}: sends under two message.sent event ids`)
    }
    const acknowledged = report.waves.reduce((sum, wave) => sum + wave.sendsAcknowledged, 0)
    assert.ok(acknowledged > 0, 'sends were acknowledged')
  },
)
