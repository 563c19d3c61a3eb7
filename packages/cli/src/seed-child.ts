import { spawn } from 'node:child_process'
import type { Config, Logger } from '@kcore/service'
import { UsageError } from './usage-error.js'

/**
 * Seeds a fresh embedded data directory in a child `kcore seed` (`self` runs this command
 * again) and resolves once it has exited. Decoding the sample snapshots and importing the AS
 * names leave memory behind that the serving process would hold for good: PGlite's
 * WebAssembly memory never shrinks and glibc keeps what the decode threads freed (an idle
 * first start held 440 MiB seeding in-process, as much as a restart once seeded apart).
 * `stop` passes the parent's first SIGTERM or SIGINT on; the child then exits by it.
 */
export async function seedInChild(
  self: readonly string[],
  config: Config,
  stop: Promise<NodeJS.Signals>,
  log: Logger,
): Promise<void> {
  const [command = process.execPath, ...args] = self
  const { DATABASE_URL: _, ...env } = process.env
  const child = spawn(command, [...args, 'seed'], {
    env: {
      ...env,
      KCORE_DATA_DIR: config.dataDir,
      KCORE_LOG_LEVEL: config.logLevel,
      KCORE_SEED_NAMES: String(config.seedNames),
      ...(config.seedDir ? { KCORE_SEED_DIR: config.seedDir } : {}),
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  log.info('seeding in a child process', { pid: child.pid, dataDir: config.dataDir })
  void stop.then((signal) => child.kill(signal))
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>(
    (resolve, reject) => {
      child.once('error', reject)
      child.once('exit', (...ended) => resolve(ended))
    },
  )
  if (code === 0 || signal) return
  // The child has said why on stderr; its usage errors (a directory in use) stay usage errors.
  const failed = `seeding ${config.dataDir} failed (kcore seed exited with ${code})`
  throw code === 2 ? new UsageError(failed) : new Error(failed)
}
