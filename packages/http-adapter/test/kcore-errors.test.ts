import { testDatabases } from '@kcore/db/testing'
import { createSyncRunner, type KcoreStore } from '@kcore/store'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHandler } from '../src/index.js'
import {
  caidaFile,
  caller,
  createMirror,
  fileProvider,
  type Mirror,
  openStore,
  type TestStore,
} from './kcore-helpers.js'

/** What PostgreSQL says on a full disk (SQLSTATE 53100), with the file path it names. */
const diskFull = () =>
  Object.assign(new Error('could not extend file "base/5/16437": No space left on device'), {
    code: '53100',
  })
/** The same seen by the file system (PGlite writes its files itself). */
const enospc = () =>
  Object.assign(new Error("ENOSPC: no space left on device, write '/var/lib/kcore/pg/base/5'"), {
    code: 'ENOSPC',
  })
/** Anything else a database can say: SQL text a client must not see. */
const internal = () => new Error('relation "kcore_shell_ipv4" does not exist at select asn from')

const INTERNALS = /base\/5|No space|ENOSPC|relation|select|kcore_shell|\/var\/lib/

describe.each(testDatabases())('store failures over HTTP on $name', ({ open }) => {
  let store: TestStore
  let mirror: Mirror
  beforeAll(async () => {
    store = await openStore(open)
    mirror = await createMirror()
    await mirror.add(caidaFile('19980101'), '19980101.as-rel.txt.bz2')
  })
  afterAll(async () => {
    await mirror?.remove()
    await store?.database.close()
  })

  /** A handler over `store` whose `summary` and `ingest` fail with `failure`. */
  function failing(failure: () => Error) {
    const broken: KcoreStore = {
      ...store,
      reader: async () => ({
        ...(await store.reader()),
        summary: async () => {
          throw failure()
        },
      }),
      ingest: async () => {
        throw failure()
      },
    }
    const logged: unknown[] = []
    const runner = createSyncRunner(broken, fileProvider(mirror), {
      onError: (error) => logged.push(error),
    })
    const handler = createHandler({
      kcore: { store: broken, runner, version: '0' },
      onError: (error) => logged.push(error),
    })
    return { call: caller(handler), logged }
  }

  it.each([
    ['a full disk (SQLSTATE 53100)', diskFull],
    ['a full disk (ENOSPC)', enospc],
  ])('answers 503 on %s, with the detail only in the log', async (_, failure) => {
    const { call, logged } = failing(failure)
    const res = await call('/api/summary')
    expect(res.status).toBe(503)
    expect(res.body).toMatchObject({ error: 'service_unavailable', status: 503 })
    expect(res.headers.get('retry-after')).toBe('30')
    expect(JSON.stringify(res.body)).not.toMatch(INTERNALS)
    expect(logged).toHaveLength(1)
    expect(String(logged[0])).toMatch(/No space|ENOSPC/)
  })

  it('answers an opaque 500 on any other database error, logged', async () => {
    const { call, logged } = failing(internal)
    const res = await call('/api/summary')
    expect(res.status).toBe(500)
    expect(res.body).toEqual({
      error: 'internal_error',
      message: 'Internal server error',
      status: 500,
    })
    expect(String(logged[0])).toMatch(/relation/)
  })

  it.each([
    ['a full disk', diskFull],
    ['any other error', internal],
  ])(
    'reports a snapshot the database refused (%s) without its text; the log has it',
    async (_, failure) => {
      const { call, logged } = failing(failure)
      const res = await call('/api/refresh', { method: 'POST', json: { ip_versions: ['ipv4'] } })
      expect(res.status).toBe(200)
      expect(res.body.ipv4).toMatchObject({ processed: false, success: false, snapshots_added: 0 })
      expect(res.body.ipv4.error).toMatch(/1998-01-01: storing the snapshot failed/)
      expect(JSON.stringify(res.body)).not.toMatch(INTERNALS)
      expect(logged).toHaveLength(1)
      expect(String(logged[0])).toMatch(INTERNALS)
    },
  )
})
