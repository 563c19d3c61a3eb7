import { readFile } from 'node:fs/promises'
import { waitUntil } from './wait-until.js'

/** Resolves once process `pid` owns the PGlite `dataDir` (its PID is in the lock's PID file). */
export async function ownsDataDir(dataDir: string, pid: number, exited: Promise<unknown>) {
  let gone = false
  void exited.then(() => {
    gone = true
  })
  await waitUntil(`process ${pid} to own ${dataDir}`, async () => {
    if (gone) throw new Error(`process ${pid} exited before owning ${dataDir}`)
    const text = await readFile(`${dataDir}.lock.pid`, 'utf8').catch(() => '')
    return text.trim() === String(pid)
  })
}
