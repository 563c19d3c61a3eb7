import { createServer } from 'node:net'
import { ConfigError } from '@kcore/service'

/**
 * Fails with a one-line {@link ConfigError} when `host:port` cannot be listened on (in use, not
 * permitted, no such interface). Run before the database opens and seeds, so a busy port costs
 * no work; a port taken in the moment between this check and the real listen still fails there.
 */
export async function assertPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, host, port)))
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve()))
  })
}

/** The one-line {@link ConfigError} for a failed listen on `host:port`. */
export function listenError(error: NodeJS.ErrnoException, host: string, port: number): ConfigError {
  const why =
    error.code === 'EADDRINUSE'
      ? 'is already in use'
      : error.code === 'EACCES'
        ? 'needs privileges to listen on'
        : `cannot be listened on (${error.code ?? error.message})`
  return new ConfigError(
    `Invalid configuration: port ${port} on ${host} ${why}; choose another with PORT or --port (or HOST / --host)`,
  )
}
