import { HttpError } from '../http-error.js'
import type { CalKind } from './cal-kind.js'

/** 404 `event-not-found`, `venue-not-found`, `organizer-not-found`, `term-not-found`. */
export const notFound = (kind: CalKind, id?: number | string) =>
  new HttpError(
    404,
    `${errorNoun(kind)}-not-found`,
    `The requested ${label(kind)}${id === undefined ? '' : ` (${id})`} does not exist`,
  )

/** 403 `*-no-longer-available` for a trashed record. */
export const noLongerAvailable = (kind: CalKind) =>
  new HttpError(
    403,
    `${errorNoun(kind)}-no-longer-available`,
    `The ${label(kind)} is no longer available`,
  )

/** 410 `*-is-in-trash` when deleting a trashed record. */
export const isInTrash = (kind: CalKind) =>
  new HttpError(410, `${errorNoun(kind)}-is-in-trash`, `The ${label(kind)} is already in the trash`)

/** 403 `*-not-accessible` for a record that is not published, asked without a token. */
export const notAccessible = (kind: CalKind) =>
  new HttpError(403, `${errorNoun(kind)}-not-accessible`, `The ${label(kind)} is not accessible`)

/** 404 `*-archive-page-not-found` for a page past the last one. */
export const archivePageNotFound = (kind: CalKind) =>
  new HttpError(
    404,
    `${errorNoun(kind)}-archive-page-not-found`,
    'The requested archive page does not exist',
  )

/** 409 `event-update-conflict`: the event kept changing under an update computed from it. */
export const updateConflict = () =>
  new HttpError(
    409,
    'event-update-conflict',
    'The event kept changing while this update was applied; read it again and retry',
  )

/** 403 `event-password-protected`. */
export const passwordProtected = () =>
  new HttpError(
    403,
    'event-password-protected',
    'The event is password protected; pass the right `password` query parameter',
  )

/** 401 for a write (or privileged read) without valid credentials. */
export const unauthorized = (reason: 'missing' | 'invalid') =>
  reason === 'missing'
    ? new HttpError(
        401,
        'rest_not_logged_in',
        'You must send `Authorization: Bearer <token>` to do this',
      )
    : new HttpError(401, 'rest_invalid_token', 'The bearer token is not valid')

/** 400 `rest_invalid_param` naming each bad field. */
export const invalidParams = (params: Record<string, string>) =>
  new HttpError(
    400,
    'rest_invalid_param',
    `Invalid parameter(s): ${Object.keys(params).join(', ')}`,
    {
      data: { params },
      details: Object.entries(params).map(([path, message]) => ({ path, message })),
    },
  )

/** 400 `term_exists` with the id of the sibling already using the name. */
export const termExists = (termId: number) =>
  new HttpError(
    400,
    'term_exists',
    'A term with the name provided already exists with this parent',
    {
      data: { term_id: termId },
    },
  )

const errorNoun = (kind: CalKind) => (kind === 'category' || kind === 'tag' ? 'term' : kind)
const label = (kind: CalKind) => kind

/** 410 `sync-token-expired`: a changes-feed token this server cannot follow (list again). */
export const syncTokenExpired = (message: string) =>
  new HttpError(410, 'sync-token-expired', message)
