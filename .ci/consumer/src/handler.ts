// Audience 2: a host mounting the fetch handler, in Hono and on plain node:http.
import { openDatabase } from '@kcore/db'
import { createProvider } from '@kcore/engine'
import { createHandler } from '@kcore/http-adapter'
import { listen } from '@kcore/http-adapter/node'
import { createKcoreStore } from '@kcore/store'
import { Hono } from 'hono'

const database = await openDatabase({})
const store = createKcoreStore(database)
await store.migrate()
const handler = createHandler({
  kcore: { store, provider: createProvider({ baseUrl: 'http://127.0.0.1:9/' }), version: '0.0.0' },
})
// @ts-expect-error the handler takes a Request, not a string
void (() => handler('/api/health'))

try {
  const app = new Hono().mount('/', handler)
  const viaHono = await app.request('/api/health')
  if (viaHono.status !== 200) throw new Error(`Hono: ${viaHono.status} ${await viaHono.text()}`)

  const server = await listen(handler, { hostname: '127.0.0.1' })
  try {
    const viaNode = await fetch(`http://127.0.0.1:${server.port}/api/nope`)
    const body = (await viaNode.json()) as { error?: string }
    if (viaNode.status !== 404 || body.error !== 'not_found')
      throw new Error(`node:http: ${viaNode.status} ${JSON.stringify(body)}`)
  } finally {
    await server.close()
  }
  console.log('handler: Hono 200 on /api/health, node:http JSON 404 on /api/nope')
} finally {
  await handler.close()
  await database.close()
}
