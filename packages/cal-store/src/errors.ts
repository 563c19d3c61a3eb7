import type { RecordKind } from './status.js'

/** Base class of every error the store throws on purpose; `code` is stable for mapping. */
export class CalStoreError extends Error {
  readonly code: string
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'CalStoreError'
    this.code = code
  }
}

/** No record of this kind with this id or slug (API: 404 `<kind>-not-found`). */
export class CalNotFoundError extends CalStoreError {
  readonly kind: RecordKind
  readonly key: number | string
  constructor(kind: RecordKind, key: number | string) {
    super('not_found', `${kind} ${JSON.stringify(key)} not found`)
    this.name = 'CalNotFoundError'
    this.kind = kind
    this.key = key
  }
}

/** Trashing a record already in the trash (API: 410 `<kind>-is-in-trash`). */
export class CalInTrashError extends CalStoreError {
  readonly kind: RecordKind
  readonly id: number
  constructor(kind: RecordKind, id: number) {
    super('in_trash', `${kind} ${id} is in the trash`)
    this.name = 'CalInTrashError'
    this.kind = kind
    this.id = id
  }
}

/** A sibling term (same taxonomy and parent) already has this name, case-insensitively. */
export class CalTermExistsError extends CalStoreError {
  /** Id of the existing term (API: `data.term_id`). */
  readonly termId: number
  constructor(name: string, termId: number) {
    super('term_exists', `a term named ${JSON.stringify(name)} already exists here`)
    this.name = 'CalTermExistsError'
    this.termId = termId
  }
}

/**
 * A write or filter names a related record that does not exist. `field` is the input field
 * (`venue`, `organizers`, `categories`, `tags`, `post_parent`, `parent`); `value` the bad entry.
 */
export class CalUnknownReferenceError extends CalStoreError {
  readonly field: string
  readonly value: number | string
  constructor(field: string, value: number | string) {
    super('unknown_reference', `${field}: no record ${JSON.stringify(value)}`)
    this.name = 'CalUnknownReferenceError'
    this.field = field
    this.value = value
  }
}

/** An input value breaks a write rule (end before start, bad time zone, empty name, …). */
export class CalValidationError extends CalStoreError {
  readonly field: string
  constructor(field: string, message: string) {
    super('invalid_input', `${field}: ${message}`)
    this.name = 'CalValidationError'
    this.field = field
  }
}

/**
 * An update made with `ifSequence` found the event changed since that read (another write
 * committed in between): nothing was written; re-read and compute the patch again.
 */
export class CalStaleReadError extends CalStoreError {
  readonly id: number
  constructor(id: number, expected: number, actual: number) {
    super(
      'stale_read',
      `event ${id} changed since it was read (sequence ${expected}, now ${actual})`,
    )
    this.name = 'CalStaleReadError'
    this.id = id
  }
}
