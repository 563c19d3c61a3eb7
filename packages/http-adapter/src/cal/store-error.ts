import {
  CalInTrashError,
  CalNotFoundError,
  CalTermExistsError,
  CalUnknownReferenceError,
  CalValidationError,
} from '@cal/store'
import { HttpError } from '../http-error.js'
import { invalidParams, isInTrash, notFound, termExists } from './cal-error.js'

/** Store field names → API field names where they differ. */
const API_FIELD: Record<string, string> = {
  start: 'start_date',
  end: 'end_date',
  organizers: 'organizer',
}

/**
 * Turns the store's deliberate errors into API errors (404/410/400); anything else is rethrown
 * (and becomes an opaque 500).
 */
export function toHttpError(error: unknown, nameField = 'name'): unknown {
  if (error instanceof HttpError) return error
  if (error instanceof CalNotFoundError) return notFound(error.kind, error.key)
  if (error instanceof CalInTrashError) return isInTrash(error.kind)
  if (error instanceof CalTermExistsError) return termExists(error.termId)
  if (error instanceof CalUnknownReferenceError) {
    const field = API_FIELD[error.field] ?? error.field
    return invalidParams({ [field]: `no such record: ${String(error.value)}` })
  }
  if (error instanceof CalValidationError) {
    const field = error.field === 'name' ? nameField : (API_FIELD[error.field] ?? error.field)
    return invalidParams({ [field]: error.message.replace(/^[^:]*: /, '') })
  }
  return error
}
