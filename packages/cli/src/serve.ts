import { serve } from '@hono/node-server'
import { createApp } from './app.js'
import type { Config } from './config.js'
import { createLogger } from './logger.js'

/**
 * Serves both APIs on Node until SIGTERM/SIGINT, then finishes in-flight requests, stops the
 * scheduler and closes the database. Resolves once shut down.
 */
export async function runServer(config: Config): Promise<void> {
  const log = createLogger(config.logLevel)
  const app = await createApp(config, log)
  const server = serve({ fetch: app.handler, port: config.port, hostname: config.host }, (info) =>
    log.info('listening', {
      url: `http://${config.host}:${info.port}`,
      dialect: app.database.dialect,
    }),
  )
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      log.info('shutting down', { signal })
      server.close(() => {
        app.close().then(resolve, (error) => {
          log.error('shutdown failed', { error: String(error) })
          resolve()
        })
      })
    }
    process.once('SIGTERM', () => stop('SIGTERM'))
    process.once('SIGINT', () => stop('SIGINT'))
  })
}
