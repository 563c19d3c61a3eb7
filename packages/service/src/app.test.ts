import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { emptyCluster } from '@kcore/db/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Receiver, startReceiver } from '../../webhooks/test/webhook-receiver.js'
import { type App, createApp } from './app.js'
import { loadConfig } from './config.js'
import { createLogger } from './logger.js'

// The composition root's webhooks on the embedded database (the same wiring on PostgreSQL is
// proven by the adapter's end-to-end suite, which runs on both): one sender started by
// createApp, woken by writes, closed by app.close().
describe('createApp webhooks', () => {
  let dir: string
  let receiver: Receiver
  const apps: App[] = []

  const start = async (env: Record<string, string>) => {
    const config = loadConfig({
      KCORE_DATA_DIR: await emptyCluster(join(dir, String(apps.length))),
      KCORE_SEED: 'false',
      KCORE_SCHEDULER_ENABLED: 'false',
      CAL_API_TOKENS: 'cal-token',
      KCORE_ADMIN_TOKEN: 'admin-token',
      ...env,
    })
    const app = await createApp(config, createLogger('silent'))
    apps.push(app)
    const call = async (method: string, path: string, body?: unknown, token = 'cal-token') => {
      const res = await app.handler(
        new Request(`http://localhost${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      )
      return { status: res.status, body: await res.json().catch(() => undefined) }
    }
    return { app, call }
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kcore-app-webhooks-'))
    receiver = await startReceiver()
  })
  afterAll(async () => {
    for (const app of apps) await app.close().catch(() => {})
    await receiver?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('refuses loopback receivers unless KCORE_WEBHOOKS_ALLOW_PRIVATE is true', async () => {
    const { call } = await start({})
    const res = await call('POST', '/cal/events/v1/webhooks', {
      url: receiver.url('/refused'),
      events: ['event.created'],
    })
    expect(res.status).toBe(400)
    expect(Object.keys(res.body.data.params)).toEqual(['url'])
  })

  it('sends a write’s message through the app’s sender, then closes it with the app', async () => {
    const { app, call } = await start({ KCORE_WEBHOOKS_ALLOW_PRIVATE: 'true' })
    const sub = await call('POST', '/cal/events/v1/webhooks', {
      url: receiver.url('/app'),
      events: ['event.created', 'category.created'],
    })
    expect(sub.status).toBe(201)
    receiver.secret('/app', sub.body.secret)
    const made = await call('POST', '/cal/events/v1/categories', { name: 'Jazz' })
    expect(made.status).toBe(201)
    await receiver.until((r) => r.some((m) => m.path === '/app'), 5_000)
    const [message] = receiver.received.filter((m) => m.path === '/app')
    expect(message?.verified).toBe(true)
    expect(message?.message).toMatchObject({ type: 'category.created', data: made.body })
    // The links are the service's (no public URL: localhost and the configured port).
    expect(made.body.urls.self).toMatch(/^http:\/\/localhost:8080\/cal\/events\/v1\/categories\//)
    // The sender closes before the database (a sender left running would fail its next pass).
    await app.close()
    apps.splice(apps.indexOf(app), 1)
  })
})

// The warm-up createApp runs before a host listens: the hot reads answered once in-process,
// logged as one debug line, not as a client's request.
describe('createApp warm-up', () => {
  it('warms the reads before it returns, logging no request for it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kcore-app-warm-'))
    const lines: { level: string; msg: string; ms?: number; path?: string }[] = []
    const log = createLogger('debug', (line) => lines.push(JSON.parse(line)))
    const dataDir = await emptyCluster(join(dir, 'db'))
    // Unseeded: the warm-up reads health alone, whatever the stores hold.
    const config = loadConfig({
      KCORE_DATA_DIR: dataDir,
      KCORE_SEED: 'false',
      KCORE_SCHEDULER_ENABLED: 'false',
    })
    const app = await createApp(config, log)
    try {
      const warmed = lines.filter((line) => line.msg === 'warmed up')
      expect(warmed).toHaveLength(1)
      expect(warmed[0]!.level).toBe('debug')
      expect(warmed[0]!.ms).toBeGreaterThanOrEqual(0)
      expect(lines.filter((line) => line.msg === 'request')).toEqual([])
      // A client's request after it is logged as ever.
      const response = await app.handler(new Request('http://localhost/api/health'))
      expect(response.status).toBe(200)
      expect(lines.filter((line) => line.msg === 'request')).toHaveLength(1)
    } finally {
      await app.close()
      await rm(dir, { recursive: true, force: true })
    }
  })
})
