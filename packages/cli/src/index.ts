/**
 * `@kcore/cli`: the `kcore` command. The service it runs is `@kcore/service` (hosts import that);
 * this package adds the command line and the Node server with its graceful shutdown.
 *
 * @packageDocumentation
 */

export { type CliIo, main } from './program.js'
export { runServer, SHUTDOWN_GRACE_MS } from './serve.js'
