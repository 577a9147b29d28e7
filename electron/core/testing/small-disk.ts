import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Where util-linux puts them (Debian). */
const MOUNT = '/usr/bin/mount'
const UMOUNT = '/usr/bin/umount'

/** A small filesystem a test fills up: a tmpfs of its own, which the test can grow (the operator frees room). */
export interface SmallDisk {
  path: string
  /** Gives the filesystem this many mebibytes (remounted in place: what it holds stays). */
  grow(mebibytes: number): void
  dispose(): void
}

/**
 * Why a small disk cannot be made here (mounting a tmpfs needs root, as in the CI container), or undefined when
 * it can: the probe mounts and unmounts one.
 */
export function smallDiskMissing(): string | undefined {
  try {
    smallDisk(1).dispose()
    return undefined
  } catch (error) {
    return `a tmpfs cannot be mounted here (${(error as Error).message.split('\n')[0]})`
  }
}

/** Mounts a tmpfs of `mebibytes` on a fresh folder. */
export function smallDisk(mebibytes: number): SmallDisk {
  const path = mkdtempSync(join(tmpdir(), 'linkdesk-small-disk-'))
  try {
    execFileSync(MOUNT, ['-t', 'tmpfs', '-o', `size=${mebibytes}m,mode=0700`, 'tmpfs', path], {
      stdio: 'pipe',
    })
  } catch (error) {
    rmSync(path, { recursive: true, force: true })
    throw error
  }
  return {
    path,
    grow: (size) => execFileSync(MOUNT, ['-o', `remount,size=${size}m`, path], { stdio: 'pipe' }),
    dispose() {
      execFileSync(UMOUNT, ['-l', path], { stdio: 'pipe' })
      rmSync(path, { recursive: true, force: true })
    },
  }
}
