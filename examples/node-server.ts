// Node: the handler behind node:http through @hono/node-server's fetch adapter.
// Run: node --import tsx examples/node-server.ts   (configuration from the environment; see README)
import { serve } from '@hono/node-server'
import { answerClientErrorsAsJson } from '@kcore/http-adapter/node'
import { createApp, loadConfig } from '@kcore/service'

const config = loadConfig(process.env)
// A start failure (e.g. the data directory is owned by another process) is one line, with the
// error's exit code (2 for a locked data directory) when it has one.
const app = await createApp(config).catch((error) => {
  console.error(`kcore: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(typeof error?.exitCode === 'number' ? error.exitCode : 1)
})
const server = serve({ fetch: app.handler, port: config.port, hostname: config.host }, (info) => {
  app.listening(info.port)
  console.log(`listening on http://localhost:${info.port}`)
})
// Parser errors (431, bad framing, unknown methods) as the JSON envelope, as `kcore serve` does.
answerClientErrorsAsJson(server)
process.once('SIGTERM', () => server.close(() => void app.close()))
