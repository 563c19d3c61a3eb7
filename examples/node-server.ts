// Node: the handler behind node:http through @hono/node-server's fetch adapter.
// Run: node --import tsx examples/node-server.ts   (configuration from the environment; see README)
import { serve } from '@hono/node-server'
import { createApp, loadConfig } from '@kcore/cli'
import { answerClientErrorsAsJson } from '@kcore/http-adapter/node'

const config = loadConfig(process.env)
const app = await createApp(config)
const server = serve({ fetch: app.handler, port: config.port, hostname: config.host }, (info) => {
  app.listening(info.port)
  console.log(`listening on http://localhost:${info.port}`)
})
// Parser errors (431, bad framing, unknown methods) as the JSON envelope, as `kcore serve` does.
answerClientErrorsAsJson(server)
process.once('SIGTERM', () => server.close(() => void app.close()))
