import type { IpVersion } from '@kcore/engine'

/**
 * Base class of every error `@kcore/store` throws on purpose. `code` is stable: hosts map it to
 * their own errors (the HTTP API maps it in one place, `store-error-status.ts`).
 */
export class KcoreStoreError extends Error {
  readonly code: string
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'KcoreStoreError'
    this.code = code
  }
}

/** No snapshot of this IP version is stored for this date (API: 404 `snapshot_not_found`). */
export class SnapshotNotFoundError extends KcoreStoreError {
  readonly ipVersion: IpVersion
  readonly date: string
  constructor(ipVersion: IpVersion, date: string) {
    super('snapshot_not_found', `no ${ipVersion} snapshot is stored for ${date}`)
    this.name = 'SnapshotNotFoundError'
    this.ipVersion = ipVersion
    this.date = date
  }
}

/** The ASN appears in no stored snapshot of any IP version (API: 404 `asn_not_found`). */
export class AsnNotFoundError extends KcoreStoreError {
  readonly asn: number
  constructor(asn: number) {
    super('asn_not_found', `ASN ${asn} appears in no stored snapshot`)
    this.name = 'AsnNotFoundError'
    this.asn = asn
  }
}

/**
 * A research query's argument is out of its range (`k`, `top`, `limit`, `minShell`, page size).
 * `field` names the argument (API: 400 `invalid_parameter`).
 */
export class InvalidQueryError extends KcoreStoreError {
  readonly field: string
  constructor(field: string, message: string) {
    super('invalid_query', `${field} ${message}`)
    this.name = 'InvalidQueryError'
    this.field = field
  }
}

/**
 * A setting the store's services cannot run with, e.g. a scheduler cron expression that is not
 * five fields croner can parse. Thrown at creation, before anything runs.
 */
export class KcoreConfigError extends KcoreStoreError {
  constructor(message: string) {
    super('invalid_config', message)
    this.name = 'KcoreConfigError'
  }
}

/**
 * The snapshot is stored but its graph's links are not: it was stored before migration 0010
 * (or in a links format this version does not read). Ingesting it again stores them (API: 409
 * `snapshot_links_not_stored`).
 */
export class SnapshotLinksNotStoredError extends KcoreStoreError {
  readonly ipVersion: IpVersion
  readonly date: string
  constructor(ipVersion: IpVersion, date: string) {
    super(
      'snapshot_links_not_stored',
      `the links of the ${ipVersion} snapshot of ${date} are not stored (it was stored before ` +
        'they were); ingest it again to store them',
    )
    this.name = 'SnapshotLinksNotStoredError'
    this.ipVersion = ipVersion
    this.date = date
  }
}
