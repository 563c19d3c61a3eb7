// Deno: the same handler, served by Deno.serve.
// Run: deno run -A examples/deno-server.ts
import { createApp, loadConfig } from '@kcore/service'

const config = loadConfig(Deno.env.toObject())
// A start failure (e.g. the data directory is owned by another process) is one line, with the
// error's exit code (2 for a locked data directory) when it has one.
const app = await createApp(config).catch((error) => {
  console.error(`kcore: ${error instanceof Error ? error.message : String(error)}`)
  Deno.exit(typeof error?.exitCode === 'number' ? error.exitCode : 1)
})
const server = Deno.serve({ port: config.port, hostname: config.host }, app.handler)
Deno.addSignalListener('SIGTERM', async () => {
  await server.shutdown()
  await app.close()
  Deno.exit(0)
})
