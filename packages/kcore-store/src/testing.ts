/**
 * `@kcore/store/testing`: what tests of the store and of its hosts share: a CAIDA provider over
 * HTTP that fails on demand, small real fixture files, a migrated store on a test database and
 * table checks.
 *
 * @packageDocumentation
 */

export { decodeAsns, decodeShells } from './shell-blobs.js'
export {
  type Fault,
  type FaultProviderServer,
  flipMiddleBytes,
  startFaultProvider,
} from './testing/fault-provider-server.js'
export { FIXTURE, MALFORMED_FIXTURE } from './testing/fixtures.js'
export {
  expectedVersion,
  type Offer,
  offerSnapshots,
  type StoredVersion,
  snapshotFileName,
  storedVersion,
} from './testing/offers.js'
export {
  clearKcoreTables,
  countKnownAsns,
  countRows,
  fenceMismatches,
  rowsOfDate,
  shellPairs,
  storedAsnCount,
  storedShells,
} from './testing/tables.js'
export { migrateKcore, openStore, type TestStore } from './testing/test-store.js'
