import assert from 'node:assert/strict'
import { mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { PostsInFlight } from './posts-in-flight'

const file = () => join(mkdtempSync(join(tmpdir(), 'linkdesk-posts-')), 'webhook-posts')

test('after a stop, only a post still under way, or retried without its outcome committed, counts again', () => {
  const path = file()
  const posts = new PostsInFlight(path)
  assert.equal(posts.starting('delivered'), false)
  posts.settled('delivered', false)
  assert.equal(posts.starting('retried'), false)
  posts.settled('retried', true)
  assert.equal(posts.starting('under way'), false)
  posts.close()

  const next = new PostsInFlight(path)
  assert.equal(next.starting('retried'), false, 'its outcome was committed: the retry is a new post')
  assert.equal(next.starting('under way'), true, 'the receiver may have it: a re-post')
  assert.equal(next.starting('under way'), false, 'counted once')
  next.close()
})

test('the file is emptied once no post is under way and it has grown', () => {
  const path = file()
  const posts = new PostsInFlight(path)
  for (let i = 0; i < 2000; i++) {
    posts.starting(`q${i}`)
    if (i % 2 === 0) posts.starting(`r${i}`)
    posts.settled(`q${i}`, false)
    if (i % 2 === 0) posts.settled(`r${i}`, false)
  }
  assert.ok(statSync(path).size < 16 * 1024, `${statSync(path).size} bytes left`)
  posts.starting('last')
  posts.close()
  const next = new PostsInFlight(path)
  assert.equal(next.starting('last'), true)
  next.close()
})
