import { listen, type NodeListener } from '@kcore/http-adapter/node'
import { type Config, createApp, createLogger } from '@kcore/service'
import { listenError } from './port-check.js'
import { seedInChild } from './seed-child.js'
import { clusterExists } from './usage-error.js'

/** How long a shutdown waits for requests still running before it closes the database. */
export const SHUTDOWN_GRACE_MS = 10_000

/** How long a shutdown lets the last responses flush before it drops every socket. */
const FLUSH_GRACE_MS = 1_000

/**
 * Serves both APIs on Node until SIGTERM/SIGINT, then stops accepting, lets the requests still
 * running finish (up to {@link SHUTDOWN_GRACE_MS}), stops the scheduler and closes the
 * database. A request keeps running after its client hangs up, so waiting for the sockets alone
 * would close the database under it. Resolves once shut down.
 *
 * The signals are handled from the start: one that comes while the database opens (a
 * supervisor giving up on a slow start) or as the port opens closes the database once it is
 * open, where it used to kill the process mid-start, silently; a second one kills it at once.
 *
 * Given `self` (how to run this command again), a fresh embedded data directory is seeded by a
 * child process first ({@link seedInChild}); without it, `createApp` seeds in this process.
 */
export async function runServer(
  config: Config,
  options: { self?: readonly string[] | undefined } = {},
): Promise<void> {
  const log = createLogger(config.logLevel)
  const signal = firstSignal(['SIGTERM', 'SIGINT'])
  try {
    // Debug only: a start refused at once (a data directory in use) prints one line.
    log.debug('starting', { database: config.databaseUrl ? 'postgres' : 'pglite' })
    if (options.self && config.seed && !config.databaseUrl && !clusterExists(config.dataDir)) {
      await seedInChild(options.self, config, signal.next, log)
      if (signal.received) {
        log.info('shutting down', { signal: signal.received, running: 0 })
        return
      }
    }
    const app = await createApp(config, log)
    if (signal.received) {
      log.info('shutting down', { signal: signal.received, running: 0 })
      await app.close()
      return
    }
    const running = new Set<Promise<Response>>()
    const fetch = (request: Request) => {
      const response = app.handler(request)
      running.add(response)
      const done = () => running.delete(response)
      response.then(done, done)
      return response
    }
    let listener: NodeListener
    try {
      // The library's Node listener (client errors answered as JSON), as any host would use it.
      listener = await listen(fetch, { port: config.port, hostname: config.host })
    } catch (error) {
      // A port taken after the start-up check (another process won the race) is the same
      // one-line usage error as the check's, after the database is closed again.
      await app.close().catch(() => {})
      throw listenError(error as NodeJS.ErrnoException, config.host, config.port)
    }
    const { server } = listener
    app.listening(listener.port)
    log.info('listening', {
      url: `http://${config.host}:${listener.port}`,
      dialect: app.database.dialect,
    })
    log.info('shutting down', { signal: await signal.next, running: running.size })
    const closed = new Promise<void>((r) => server.close(() => r()))
    let timer: NodeJS.Timeout | undefined
    const grace = new Promise<'timeout'>((r) => {
      timer = setTimeout(() => r('timeout'), SHUTDOWN_GRACE_MS)
    })
    if ((await Promise.race([Promise.allSettled([...running]), grace])) === 'timeout') {
      log.warn('closing with requests still running', { running: running.size })
    }
    clearTimeout(timer)
    // A settled handler promise does not mean its response is on the wire yet: give the last
    // responses a moment to flush (the server closes once every socket has), then drop the
    // keep-alive sockets that would hold the process open.
    await Promise.race([closed, new Promise((r) => setTimeout(r, FLUSH_GRACE_MS))])
    ;(server as { closeAllConnections?: () => void }).closeAllConnections?.()
    try {
      await app.close()
    } catch (error) {
      log.error('shutdown failed', { error: String(error) })
    }
  } finally {
    signal.dispose()
  }
}

/**
 * The first of `names` this process receives from now on: `received` once it came, `next`
 * resolving with it. Each handler is taken once, so a second signal has its default effect
 * (a supervisor's second SIGTERM, or a second Ctrl-C, ends the process at once).
 */
function firstSignal(names: NodeJS.Signals[]) {
  let received: NodeJS.Signals | undefined
  let resolve!: (name: NodeJS.Signals) => void
  const next = new Promise<NodeJS.Signals>((r) => (resolve = r))
  const handlers = names.map((name) => {
    const handler = () => {
      received ??= name
      resolve(received)
    }
    process.once(name, handler)
    return [name, handler] as const
  })
  return {
    get received() {
      return received
    },
    next,
    dispose() {
      for (const [name, handler] of handlers) process.off(name, handler)
    },
  }
}
