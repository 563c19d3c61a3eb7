// A host that uses createHandler as a library: answers a few requests, closes its database,
// never calls handler.close(), and returns. library-use.slow.test.ts waits for the process to
// exit after that (nothing the handler made may keep it open).
import { createCalStore } from '@cal/store'
import { openDatabase } from '@kcore/db'
import { createProvider, DEFAULT_PROVIDER_URL } from '@kcore/engine'
import { createKcoreStore } from '@kcore/store'
import { createHandler } from '../src/index.js'

const database = await openDatabase({})
const kcore = createKcoreStore(database)
const cal = createCalStore(database)
await kcore.migrate()
await cal.migrate()
const before = process.getActiveResourcesInfo()
// Every timer set from here on that has neither fired nor been cleared at the end, ref'd or
// not: a library's pending timer is work nobody asked for (e.g. a cron job's next tick).
const pending = new Set<unknown>()
const timers = globalThis as unknown as Record<string, (...args: unknown[]) => unknown>
for (const [setName, clearName, once] of [
  ['setTimeout', 'clearTimeout', true],
  ['setInterval', 'clearInterval', false],
] as const) {
  const set = timers[setName]!
  const clear = timers[clearName]!
  timers[setName] = (fn, ms, ...args) => {
    const timer = set(
      (...params: unknown[]) => {
        if (once) pending.delete(timer)
        ;(fn as (...params: unknown[]) => void)(...params)
      },
      ms,
      ...args,
    )
    pending.add(timer)
    return timer
  }
  timers[clearName] = (timer) => {
    pending.delete(timer)
    return clear(timer)
  }
}
const handler = createHandler({
  kcore: {
    store: kcore,
    provider: createProvider({ baseUrl: DEFAULT_PROVIDER_URL }),
    version: 'library',
  },
  cal: { store: cal, tokens: [] },
})
for (const path of ['/api/health', '/api/summary', '/api/trends/3356', '/cal/events/v1/events']) {
  const response = await handler(new Request(`http://localhost${path}`))
  await response.arrayBuffer()
}
// Timers count even unref'd: a library's timer is work nobody asked for.
const added = process.getActiveResourcesInfo()
for (const name of before) added.splice(added.indexOf(name), 1)
console.log(`resources added ${JSON.stringify(added)}`)
console.log(`timers pending ${pending.size}`)
await database.close()
