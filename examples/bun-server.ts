// Bun: the same handler, served by Bun.serve.
// Run: bun examples/bun-server.ts
import { createApp, loadConfig } from '@kcore/cli'

const config = loadConfig(process.env)
const app = await createApp(config)
const server = Bun.serve({ port: config.port, hostname: config.host, fetch: app.handler })
console.log(`listening on ${server.url}`)
process.once('SIGTERM', async () => {
  await server.stop()
  await app.close()
  process.exit(0)
})
