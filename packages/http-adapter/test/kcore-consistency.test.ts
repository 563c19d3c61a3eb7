import type { Database } from '@kcore/db'
import { secondConnection, testDatabases } from '@kcore/db/testing'
import { createKcoreStore, ingestFile, type KcoreStore } from '@kcore/store'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Handler } from '../src/index.js'
import { caidaFile, caller, kcoreHandler, openStore, type TestStore } from './kcore-helpers.js'

const DATE = '2013-02-01'
/** Two different real files, stored in turn under the same date (a CAIDA re-issue, twice over). */
const FILES = [caidaFile('20130101'), caidaFile('20130201')]
const PATHS = [
  `/api/snapshots/${DATE}/distribution`,
  `/api/snapshots/${DATE}/core`,
  `/api/snapshots/${DATE}/core?top=500`,
  `/api/movers?from=1998-01-01&to=${DATE}&limit=20`,
]
const SHELLS = `/api/snapshots/${DATE}/shells?format=json`

/** A store on a second connection pool to the same database, as another process has. */
async function secondStore(
  database: Database,
): Promise<{ store: KcoreStore; close(): Promise<void> }> {
  const other = await secondConnection(database)
  return { store: createKcoreStore(other), close: () => other.close() }
}

/** A body read slowly, so that a re-ingest commits while it is read; undefined when cut. */
async function slowText(handler: Handler, path: string): Promise<string | undefined> {
  const res = await handler(new Request(`http://localhost${path}`))
  expect(res.status).toBe(200)
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return text
      text += decoder.decode(value, { stream: true })
      await new Promise((resolve) => setTimeout(resolve, 15))
    }
  } catch {
    return undefined
  }
}

describe.each(testDatabases())(
  'one committed state per answer while a date is re-ingested, on $name',
  ({ open }) => {
    let store: TestStore
    let handler: Handler
    let writer: Awaited<ReturnType<typeof secondStore>>
    /** Per path, the answer each file gives (read while nothing is written). */
    const expected = new Map<string, string[]>()

    beforeAll(async () => {
      store = await openStore(open)
      handler = kcoreHandler(store)
      writer = await secondStore(store.database)
      const call = caller(handler)
      await ingestFile(writer.store, caidaFile('19980101'), { date: '1998-01-01' })
      for (const file of FILES) {
        await ingestFile(writer.store, file, { date: DATE })
        for (const path of [...PATHS, SHELLS]) {
          const answers = expected.get(path) ?? []
          answers.push(JSON.stringify((await call(path)).body))
          expected.set(path, answers)
        }
      }
    }, 180_000)
    afterAll(async () => {
      await writer?.close()
      await handler?.close()
      await store?.database.close()
    })

    it('never mixes the old record with the new rows, nor two contents in one stream', async () => {
      for (const [path, answers] of expected)
        expect(
          new Set(answers).size,
          `${path} ${answers.map((a) => a.slice(0, 150)).join(' // ')}`,
        ).toBe(2)
      let writing = true
      const rewrites = (async () => {
        try {
          for (let round = 0; round < 6; round++)
            await ingestFile(writer.store, FILES[round % 2]!, { date: DATE })
        } finally {
          writing = false
        }
      })()
      const counts = { answers: 0, cut: 0 }
      const call = caller(handler)
      const reads = async () => {
        while (writing) {
          // A turn of the event loop: the writer's decompression answers from a worker thread.
          await new Promise((resolve) => setImmediate(resolve))
          for (const path of PATHS) {
            const { status, body } = await call(path)
            expect(status, path).toBe(200)
            expect(expected.get(path), path).toContain(JSON.stringify(body))
            counts.answers++
          }
        }
      }
      const streams = async () => {
        while (writing) {
          const text = await slowText(handler, SHELLS)
          if (text === undefined) counts.cut++
          else {
            expect(expected.get(SHELLS)).toContain(JSON.stringify(JSON.parse(text)))
            counts.answers++
          }
        }
      }
      await Promise.all([rewrites, reads(), reads(), streams()])
      console.log(`${counts.answers} whole answers, ${counts.cut} streams cut by a re-ingest`)
      expect(counts.answers).toBeGreaterThan(0)
    }, 300_000)
  },
)
