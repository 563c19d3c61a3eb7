import {
  CalInTrashError,
  CalNotFoundError,
  CalSyncTokenExpiredError,
  CalTermExistsError,
  CalUnknownReferenceError,
  CalValidationError,
} from '@cal/store'
import type { HttpError } from '../http-error.js'
import { CAL_BASE } from './cal-api-options.js'
import { invalidParams, isInTrash, notFound, syncTokenExpired, termExists } from './cal-error.js'

/** Store field names → API field names where they differ. */
const API_FIELD: Record<string, string> = {
  start: 'start_date',
  end: 'end_date',
  organizers: 'organizer',
}

/** The field a store `CalValidationError` on `name` is about, per path prefix. */
const NAME_FIELD: Record<string, string> = {
  events: 'title',
  venues: 'venue',
  organizers: 'organizer',
  categories: 'name',
  tags: 'name',
}

/** The API field the store's `name` is on the route `request` went to (`name` when unknown). */
export function nameFieldOf(request: Request | undefined): string {
  if (!request) return 'name'
  const path = new URL(request.url).pathname
  const kind = path.startsWith(`${CAL_BASE}/`) ? path.slice(CAL_BASE.length + 1).split('/')[0] : ''
  return NAME_FIELD[kind ?? ''] ?? 'name'
}

/**
 * The calendar API's `mapError`, the one place the store's deliberate errors become API errors
 * (404/410/400); anything else is `undefined` (the core makes it a 503 or an opaque 500).
 */
export function calStoreError(error: unknown, nameField = 'name'): HttpError | undefined {
  if (error instanceof CalNotFoundError) return notFound(error.kind, error.key)
  if (error instanceof CalInTrashError) return isInTrash(error.kind)
  if (error instanceof CalSyncTokenExpiredError) return syncTokenExpired(error.message)
  if (error instanceof CalTermExistsError) return termExists(error.termId)
  if (error instanceof CalUnknownReferenceError) {
    const field = API_FIELD[error.field] ?? error.field
    return invalidParams({ [field]: `no such record: ${String(error.value)}` })
  }
  if (error instanceof CalValidationError) {
    const field = error.field === 'name' ? nameField : (API_FIELD[error.field] ?? error.field)
    return invalidParams({ [field]: error.message.replace(/^[^:]*: /, '') })
  }
  return undefined
}
