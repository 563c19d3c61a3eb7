// Node: the handler behind node:http through @hono/node-server's fetch adapter.
// Run: node --import tsx examples/node-server.ts   (configuration from the environment; see README)
import { serve } from '@hono/node-server'
import { createApp, loadConfig } from '@kcore/cli'

const config = loadConfig(process.env)
const app = await createApp(config)
const server = serve({ fetch: app.handler, port: config.port, hostname: config.host }, (info) =>
  console.log(`listening on http://localhost:${info.port}`),
)
process.once('SIGTERM', () => server.close(() => void app.close()))
