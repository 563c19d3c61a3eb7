import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import type { Database } from '@kcore/db'
import { testDatabases } from '@kcore/db/testing'
import { afterEach, describe, expect, it } from 'vitest'
import {
  createWebhookSender,
  enqueueWebhook,
  migrateWebhooks,
  type WebhookSender,
  type WebhookTables,
  webhookSubscriptions,
} from '../src/index.js'
import { type Receiver, startReceiver } from './webhook-receiver.js'

const postgres = testDatabases().find((d) => d.name === 'postgres')
const FIXTURE = fileURLToPath(new URL('./webhook-sender.fixture.ts', import.meta.url))
const TIMEOUT_MS = 3_000
const LEASE_MS = 3_000 + TIMEOUT_MS

describe.skipIf(!postgres)('a sending process killed mid-delivery (PostgreSQL)', () => {
  let database: Database | undefined
  let receiver: Receiver | undefined
  let sender: WebhookSender | undefined

  afterEach(async () => {
    await sender?.close()
    await receiver?.close()
    await database?.close()
  })

  it('loses nothing and invents nothing: every committed message arrives, verified', async () => {
    database = await postgres!.open()
    await migrateWebhooks(database.db)
    const db = database.db.withTables<WebhookTables>()
    const { rows } = await db
      .selectNoFrom((eb) => eb.fn<string>('current_database', []).as('name'))
      .execute()
      .then((rows) => ({ rows }))
    const url = new URL(process.env.DATABASE_URL!)
    url.pathname = `/${rows[0]!.name}`

    // Phase 1 (the child sends): 200 to the first five, then hold every request open.
    // Phase 2 (after the kill): down (503) for a second, then 200.
    let phase: 'child' | 'down' | 'up' = 'child'
    const answers = new Map<string, { at: number; status: number | 'hang' }[]>()
    receiver = await startReceiver((request, n) => {
      const status = phase === 'child' ? (n <= 5 ? 200 : 'hang') : phase === 'down' ? 503 : 200
      const id = request.headers['webhook-id']!
      answers.set(id, [...(answers.get(id) ?? []), { at: Date.now(), status }])
      return status
    })
    const subs = webhookSubscriptions(database, {
      events: { cal: ['event.created'] },
      allowPrivate: true,
    })
    for (const path of ['/a', '/b']) {
      const sub = await subs.subscribe('cal', {
        url: receiver.url(path),
        events: ['event.created'],
      })
      receiver.secret(path, sub.secret)
    }
    for (let i = 0; i < 15; i++) {
      // Every third write rolls back: its messages must never arrive.
      const rollback = i % 3 === 2
      await database.db
        .transaction()
        .execute(async (trx) => {
          await enqueueWebhook(trx, 'cal', 'event.created', { i, rollback })
          if (rollback) throw new Error('rolled back')
        })
        .catch((error: Error) => {
          if (error.message !== 'rolled back') throw error
        })
    }
    const committed = await db.selectFrom('webhook_message').select('id').execute()
    expect(committed).toHaveLength(20)

    const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=source', FIXTURE], {
      env: {
        PATH: process.env.PATH,
        DATABASE_URL: url.toString(),
        TIMEOUT_MS: String(TIMEOUT_MS),
        LEASE_MS: String(LEASE_MS),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const output: string[] = []
    for (const stream of [child.stdout, child.stderr])
      createInterface({ input: stream }).on('line', (line) => output.push(line))
    const exited = new Promise((resolve) => child.once('exit', resolve))

    // Kill -9 while it holds requests open (messages leased, no outcome recorded).
    await receiver
      .until((r) => r.length >= 7, 30_000)
      .catch((error) => {
        child.kill('SIGKILL')
        throw new Error(`${error.message}\n${output.join('\n')}`)
      })
    child.kill('SIGKILL')
    await exited
    const killedAt = Date.now()
    phase = 'down'
    const leased = await db
      .selectFrom('webhook_message')
      .select(['id', 'locked_until'])
      .where('lease', 'is not', null)
      .execute()
    expect(leased.length).toBeGreaterThan(0)

    sender = createWebhookSender(database, {
      allowPrivate: true,
      timeoutMs: TIMEOUT_MS,
      leaseMs: LEASE_MS,
      retryDelaysMs: [200, 400, 800, 1600, 3200],
      pollIntervalMs: 50,
    })
    sender.start()
    setTimeout(() => {
      phase = 'up'
    }, 1000)

    const deadline = Date.now() + 60_000
    for (;;) {
      const left = await db
        .selectFrom('webhook_message')
        .select('id')
        .where('status', '<>', 'delivered')
        .execute()
      if (left.length === 0) break
      if (Date.now() > deadline) throw new Error(`${left.length} messages not delivered`)
      await new Promise((r) => setTimeout(r, 100))
    }

    const ids = new Set(committed.map((m) => m.id))
    // Every signature verified; nothing that rolled back, nothing unknown, arrived.
    expect(receiver.received.every((r) => r.verified)).toBe(true)
    expect(receiver.received.every((r) => ids.has(r.headers['webhook-id']!))).toBe(true)
    const rolledBack = receiver.received.filter(
      (r) => (r.message?.data as { rollback?: boolean } | undefined)?.rollback !== false,
    )
    expect(rolledBack).toEqual([])
    // Every committed message was answered 200 at least once.
    for (const id of ids)
      expect(
        answers.get(id)?.some((a) => a.status === 200),
        id,
      ).toBe(true)
    // What the killed process held went out again only once its lease had run out.
    for (const { id, locked_until } of leased) {
      const after = answers.get(id)!.filter((a) => a.at >= killedAt)
      expect(after.length, id).toBeGreaterThan(0)
      expect(after[0]!.at, id).toBeGreaterThanOrEqual(locked_until!.getTime() - 50)
    }
  }, 120_000)
})
