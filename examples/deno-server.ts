// Deno: the same handler, served by Deno.serve.
// Run: deno run -A examples/deno-server.ts
import { createApp, loadConfig } from '@kcore/cli'

const config = loadConfig(Deno.env.toObject())
const app = await createApp(config)
const server = Deno.serve({ port: config.port, hostname: config.host }, app.handler)
Deno.addSignalListener('SIGTERM', async () => {
  await server.shutdown()
  await app.close()
  Deno.exit(0)
})
