import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testDatabases } from '@kcore/db/testing'
import { importAsRegistry } from '@kcore/store'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Handler } from '../src/index.js'
import { caller, kcoreHandler, openStore, type TestStore } from './kcore-helpers.js'

// Hostile names through the import and out of the JSON answers (quotes, commas, line breaks,
// right-to-left marks, control characters): each comes back exactly, escaped as JSON needs;
// and the search edges the name tests do not cover (one character, regex syntax, limit 1).
const HOSTILE: [number, string][] = [
  [64500, 'Say "hi", then leave'],
  [64501, 'first line\nsecond line\r\nthird'],
  [64502, '\u202eevil\u202c \u05e9\u05dc\u05d5\u05dd \u200fRTL'],
  [64503, 'bell\u0007tab\tesc\u001bdel\u007f'],
  [64504, '</script><b>x</b> & \\ backslash'],
]
const csvField = (s: string) => `"${s.replaceAll('"', '""')}"`

/** RFC 4180 records (quoted fields with doubled quotes and line breaks), written independently. */
function parseCsv(text: string): string[][] {
  const records: string[][] = []
  let record: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"'
      i++
    } else if (c === '"') {
      quoted = !quoted
    } else if (!quoted && (c === ',' || c === '\n')) {
      record.push(field)
      field = ''
      if (c === '\n') {
        records.push(record)
        record = []
      }
    } else {
      field += c
    }
  }
  return records
}

describe.each(testDatabases())('hostile AS names over HTTP on $name', ({ open }) => {
  let store: TestStore
  let handler: Handler
  let get: ReturnType<typeof caller>
  let dir: string

  beforeAll(async () => {
    store = await openStore(open)
    dir = await mkdtemp(join(tmpdir(), 'kcore-hostile-names-'))
    const file = join(dir, 'asn-ipv4.csv')
    const rows = HOSTILE.map(
      ([asn, name], i) => `10.0.${i}.0,10.0.${i}.255,${asn},${csvField(name)}`,
    )
    await writeFile(file, `${rows.join('\r\n')}\r\n`)
    await importAsRegistry(store, [file], { date: '2026-06-17', source: 'hostile.csv' })
    // A snapshot of the hostile ASes and one the registry does not know (64510).
    const asns = [...HOSTILE.map(([asn]) => asn), 64510]
    await store.ingest({
      ipVersion: 'ipv4',
      date: '2026-06-01',
      decomposition: {
        asns: Uint32Array.from(asns),
        shells: Uint32Array.from(asns, (_, i) => 1 + (i % 2)),
        maxShell: 2,
      },
      linkCount: asns.length,
    })
    handler = kcoreHandler(store)
    get = caller(handler)
  })
  afterAll(async () => {
    await handler?.close()
    await store?.database.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('answers every name exactly, control characters escaped in the JSON text', async () => {
    for (const [asn, name] of HOSTILE) {
      const res = await handler(new Request(`http://localhost/api/asns/${asn}`))
      expect(res.status).toBe(200)
      const text = await res.text()
      // No raw control character (a line break included) ever reaches the JSON text.
      expect(
        [...text].some((c) => c.charCodeAt(0) < 0x20),
        name,
      ).toBe(false)
      expect(JSON.parse(text).name).toBe(name.trim())
    }
  })

  it('exports them exactly with include=names in CSV, NDJSON and JSON', async () => {
    const shells = (query: string) =>
      handler(new Request(`http://localhost/api/snapshots/2026-06-01/shells?${query}`))
    const plain = await (await shells('format=csv')).text()
    expect(plain.split('\n')[0]).toBe('asn,shell_index,normalized_shell_index')
    const csv = await (await shells('format=csv&include=names')).text()
    const rows = parseCsv(csv)
    expect(rows[0]).toEqual(['asn', 'shell_index', 'normalized_shell_index', 'name'])
    expect(rows.slice(1).map((r) => [Number(r[0]), r[3]])).toEqual([
      ...HOSTILE.map(([asn, name]) => [asn, name.trim()]),
      [64510, ''],
    ])
    expect(rows.slice(1).every((r) => r.length === 4)).toBe(true)
    const ndjson = (await (await shells('format=ndjson&include=names')).text())
      .trimEnd()
      .split('\n')
    expect(ndjson.map((line) => JSON.parse(line).name)).toEqual([
      ...HOSTILE.map(([, name]) => name.trim()),
      null,
    ])
    const json = JSON.parse(await (await shells('include=names&min_shell=2')).text())
    expect(json.count).toBe(json.shells.length)
    for (const row of json.shells)
      expect(Object.keys(row)).toEqual(['asn', 'shell_index', 'normalized_shell_index', 'name'])
    // No row at all: the header alone, and an empty JSON list.
    const none = await (await shells('format=csv&include=names&min_shell=99')).text()
    expect(none).toBe('asn,shell_index,normalized_shell_index,name\n')
    expect(JSON.parse(await (await shells('include=names&min_shell=99')).text())).toMatchObject({
      count: 0,
      shells: [],
    })
    expect((await shells('include=name')).status).toBe(400)
  })

  it('finds them by name with one character, regex syntax and limit 1, never 500', async () => {
    for (const q of ['s', '"', '(', '[', '\\d+', '.*', '^say', 'a|b', '%', '_', '\u05e9']) {
      const res = await get(`/api/asns?search=${encodeURIComponent(q)}&limit=1000`)
      expect(res.status, q).toBe(200)
      expect(Array.isArray(res.body.asns), q).toBe(true)
    }
    const one = await get('/api/asns?search=line&limit=1')
    expect(one.status).toBe(200)
    expect(one.body.asns).toEqual([{ asn: 64501, name: HOSTILE[1]![1] }])
    const say = await get(`/api/asns?search=${encodeURIComponent('say "hi"')}`)
    expect(say.body.asns.map((a: { asn: number }) => a.asn)).toContain(64500)
  })
})
