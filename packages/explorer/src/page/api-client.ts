/** An error answer of the API, carrying its envelope's code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}

/**
 * GETs a JSON document from the same origin. Error answers become an {@link ApiError} with the
 * API's own message (`{error, message, status}`); anything unreadable gets a generic one.
 */
export function getJson<T>(
  path: string,
  fetcher: typeof fetch = fetch,
  signal?: AbortSignal,
): Promise<T> {
  return askJson<T>(path, { headers: { accept: 'application/json' }, signal }, fetcher)
}

/** POSTs `body` as JSON to the same origin; the answer and its errors as {@link getJson}'s. */
export function postJson<T>(
  path: string,
  body: unknown,
  fetcher: typeof fetch = fetch,
  signal?: AbortSignal,
): Promise<T> {
  return askJson<T>(
    path,
    {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    },
    fetcher,
  )
}

async function askJson<T>(path: string, init: RequestInit, fetcher: typeof fetch): Promise<T> {
  let response: Response
  try {
    response = await fetcher(path, init)
  } catch {
    if (init.signal?.aborted)
      throw new ApiError(0, 'aborted', 'The request was replaced by a newer one.')
    throw new ApiError(0, 'network_error', 'The server could not be reached.')
  }
  const body: unknown = await response.json().catch(() => undefined)
  if (response.ok && body !== undefined) return body as T
  // A body cut short by an abort is the abort, not a server fault.
  if (init.signal?.aborted)
    throw new ApiError(0, 'aborted', 'The request was replaced by a newer one.')
  const envelope = (body ?? {}) as { error?: unknown; message?: unknown }
  throw new ApiError(
    response.status,
    typeof envelope.error === 'string' ? envelope.error : 'http_error',
    typeof envelope.message === 'string'
      ? envelope.message
      : `The server answered ${response.status} ${response.statusText}.`.trim(),
  )
}
