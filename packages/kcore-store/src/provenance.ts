import { ENGINE_VERSION, parseSnapshotFileName } from '@kcore/engine'
import type { NewSnapshot } from './kcore-store-types.js'

const SHA256 = /^[0-9a-f]{64}$/

/** CAIDA serial of a file name (the engine's rule), `null` for a name that is not CAIDA's. */
function serialOfFileName(name: string | undefined): 1 | 2 | null {
  return (name && parseSnapshotFileName(name)?.serial) || null
}

/**
 * The provenance columns of a snapshot row: what the ingest path knows, `null` for the rest,
 * the serial read from the file name and the running engine's version unless given.
 */
export function provenanceColumns(snapshot: NewSnapshot) {
  const p = snapshot.provenance ?? {}
  const sha256 = p.sha256 ?? null
  if (sha256 !== null && !SHA256.test(sha256))
    throw new RangeError(`provenance.sha256 must be 64 lowercase hex digits, got ${sha256}`)
  const fileModified = p.fileModified ?? null
  if (fileModified !== null && Number.isNaN(fileModified.getTime()))
    throw new RangeError('provenance.fileModified is an invalid Date')
  return {
    source_url: p.sourceUrl ?? null,
    serial: p.serial !== undefined ? p.serial : serialOfFileName(snapshot.source),
    sha256,
    file_modified: fileModified,
    engine_version: p.engineVersion !== undefined ? p.engineVersion : ENGINE_VERSION,
  }
}
