import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import lockfile from 'proper-lockfile'

/**
 * Thrown by {@link lockDataDir} (and so by `openDatabase({ dataDir })`) when another live
 * process owns the PGlite data directory. Its message is one line naming the directory and the
 * holder's PID; nothing has been written.
 */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError'
  /** The command line's exit code for this error (a usage problem, not a failure of the data). */
  readonly exitCode = 2
  constructor(
    readonly dataDir: string,
    readonly holderPid: number | null,
  ) {
    super(
      `data directory ${dataDir} is in use by ${holderPid === null ? 'another process' : `process ${holderPid}`}; ` +
        'stop it first, or run every process on PostgreSQL (DATABASE_URL)',
    )
  }
}

/** Releases a data-directory lock (idempotent). */
export type ReleaseDataDir = () => Promise<void>

/**
 * proper-lockfile refreshes the lock directory's mtime every `STALE_MS / 2`; a lock left by a
 * holder that died (kill -9) is taken over once its mtime is this old (the library's minimum).
 */
const STALE_MS = 2_000
/** How long an opener keeps trying while the recorded holder is dead but its lock not yet stale. */
const TAKEOVER_WAIT_MS = STALE_MS * 3
const RETRY_MS = 50

/** Directories this process holds: a second open in the same process fails at once. */
const heldHere = new Set<string>()

/**
 * Makes this process the only owner of a PGlite data directory, before PGlite touches it.
 *
 * The lock is proper-lockfile's `<dir>.lock` directory (atomic `mkdir`, mtime kept fresh while
 * the holder lives, taken over when stale). The holder's PID goes to `<dir>.lock.pid`, and it
 * is the authority: a live PID is refused at once, whatever the mtime (a PGlite ingest can
 * block the event loop for longer than the refresh interval); a dead PID's lock is taken over
 * as soon as the library sees it stale.
 *
 * @throws {DataDirLockedError} when a live process holds the directory.
 */
export async function lockDataDir(dataDir: string): Promise<ReleaseDataDir> {
  const dir = resolve(dataDir)
  if (heldHere.has(dir)) throw new DataDirLockedError(dir, process.pid)
  heldHere.add(dir)
  try {
    await mkdir(dirname(dir), { recursive: true })
    const pidFile = `${dir}.lock.pid`
    const deadline = Date.now() + TAKEOVER_WAIT_MS
    for (;;) {
      const holder = await readPid(pidFile)
      if (holder !== null && holder !== process.pid && isAlive(holder))
        throw new DataDirLockedError(dir, holder)
      try {
        const release = await lockfile.lock(dir, {
          realpath: false,
          lockfilePath: `${dir}.lock`,
          stale: STALE_MS,
          // A late refresh (event loop blocked by PGlite) must not kill the server: the PID
          // above keeps the directory ours while we live.
          onCompromised: () => {},
        })
        try {
          await writeFile(pidFile, `${process.pid}\n`)
        } catch (error) {
          // A full disk: the lock would otherwise stay taken (and kept fresh) by this process.
          await release().catch(() => {})
          throw error
        }
        let released = false
        return async () => {
          if (released) return
          released = true
          // The PID file goes first, while the lock is still ours: a PID left behind would
          // name this live process and refuse every later opener while it runs.
          if ((await readPid(pidFile)) === process.pid) await rm(pidFile, { force: true })
          heldHere.delete(dir)
          await release().catch(() => {})
        }
      } catch (error) {
        if ((error as { code?: string }).code !== 'ELOCKED') throw error
        // Held and fresh: the holder is starting (no PID written yet) or died a moment ago.
        if (Date.now() > deadline) throw new DataDirLockedError(dir, holder)
        await new Promise((r) => setTimeout(r, RETRY_MS))
      }
    }
  } catch (error) {
    heldHere.delete(dir)
    throw error
  }
}

async function readPid(file: string): Promise<number | null> {
  try {
    const pid = Number.parseInt(await readFile(file, 'utf8'), 10)
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to another user
    return (error as { code?: string }).code === 'EPERM'
  }
}
