// A sending process for webhooks-kill.slow.test.ts: a sender on DATABASE_URL until killed.
import { openPostgresDatabase } from '@kcore/db'
import { createWebhookSender } from '../src/index.js'

const database = openPostgresDatabase(process.env.DATABASE_URL!)
const sender = createWebhookSender(database, {
  allowPrivate: true,
  timeoutMs: Number(process.env.TIMEOUT_MS),
  leaseMs: Number(process.env.LEASE_MS),
  concurrency: 4,
  pollIntervalMs: 20,
  onError: (error) => console.error(error),
})
sender.start()
console.log('sending')
