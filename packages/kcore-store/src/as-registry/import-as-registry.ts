import { readFile, stat } from 'node:fs/promises'
import { basename } from 'node:path'
import { gunzipSync } from 'node:zlib'
import type { KcoreStore } from '../kcore-store-interface.js'
import { RegistryFileError, registryRecords } from './registry-csv.js'
import { RegistryGatherer } from './registry-entries.js'
import type { AsRegistryInfo } from './stored-registry.js'

/** Options of {@link importAsRegistry}. */
export interface ImportAsRegistryOptions {
  /** The registry's date, `YYYY-MM-DD`; default the newest file's modification day (UTC). */
  date?: string
  /** Where it came from; default the file names, comma-separated. */
  source?: string
}

/**
 * A file's text: UTF-8 (a byte order mark dropped), or Latin-1 when the bytes are not UTF-8
 * (every byte is a Latin-1 character, so nothing is lost or refused).
 */
function decode(raw: Uint8Array): string {
  // A gzip file (its magic bytes) is read as the CSV it holds: the shipped slice is one.
  const bytes = raw[0] === 0x1f && raw[1] === 0x8b ? gunzipSync(raw) : raw
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(start))
  } catch {
    return new TextDecoder('latin1').decode(bytes)
  }
}

/** Whether the decimal addresses of a file are IPv6 (`-ipv6-num.csv[.gz]`), judged by its name. */
function numericVersionOf(path: string): 4 | 6 | undefined {
  const name = basename(path).toLowerCase()
  return name.includes('ipv6') ? 6 : name.includes('ipv4') ? 4 : undefined
}

/**
 * Imports an AS registry from `@ip-location-db/asn`-shaped CSV files (`ip_range_start,
 * ip_range_end,asn,organisation`, dotted, colon or decimal addresses; the IPv4 and IPv6 files
 * together; plain or gzipped): every ASN's name and originated address space, stored with its source and date,
 * replacing the stored registry whole and atomically. A file that cannot be read as one (a
 * truncated or malformed record, a bad address or ASN: {@link RegistryFileError} names the file
 * and line), an empty import or one older than the stored registry changes nothing. A header
 * row (`ip_range_start,…`) is skipped.
 */
export async function importAsRegistry(
  store: KcoreStore,
  files: readonly string[],
  options: ImportAsRegistryOptions = {},
): Promise<AsRegistryInfo> {
  if (files.length === 0) throw new RangeError('importAsRegistry needs at least one file')
  const gatherer = new RegistryGatherer()
  let newest = 0
  for (const path of files) {
    const [bytes, info] = await Promise.all([readFile(path), stat(path)])
    newest = Math.max(newest, info.mtimeMs)
    const records = [...registryRecords(decode(bytes), path)]
    if (records[0]?.fields[0]?.trim().toLowerCase() === 'ip_range_start') records.shift()
    if (records.length === 0) throw new RegistryFileError(path, undefined, 'no records')
    gatherer.add(records, path, numericVersionOf(path))
  }
  const date = options.date ?? new Date(newest).toISOString().slice(0, 10)
  const source = options.source ?? files.map((f) => basename(f)).join(', ')
  const entries = gatherer.entries()
  await store.replaceAsRegistry({ source, date, entries })
  return { source, date, asn_count: entries.length }
}
