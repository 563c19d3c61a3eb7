// Bun: the same handler, served by Bun.serve.
// Run: bun examples/bun-server.ts
import { createApp, loadConfig } from '@kcore/service'

const config = loadConfig(process.env)
// A start failure (e.g. the data directory is owned by another process) is one line, with the
// error's exit code (2 for a locked data directory) when it has one.
const app = await createApp(config).catch((error) => {
  console.error(`kcore: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(typeof error?.exitCode === 'number' ? error.exitCode : 1)
})
const server = Bun.serve({ port: config.port, hostname: config.host, fetch: app.handler })
console.log(`listening on ${server.url}`)
process.once('SIGTERM', async () => {
  await server.stop()
  await app.close()
  process.exit(0)
})
