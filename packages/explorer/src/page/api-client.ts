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
export async function getJson<T>(
  path: string,
  fetcher: typeof fetch = fetch,
  signal?: AbortSignal,
): Promise<T> {
  let response: Response
  try {
    response = await fetcher(path, { headers: { accept: 'application/json' }, signal })
  } catch {
    if (signal?.aborted)
      throw new ApiError(0, 'aborted', 'The request was replaced by a newer one.')
    throw new ApiError(0, 'network_error', 'The server could not be reached.')
  }
  const body: unknown = await response.json().catch(() => undefined)
  if (response.ok && body !== undefined) return body as T
  const envelope = (body ?? {}) as { error?: unknown; message?: unknown }
  throw new ApiError(
    response.status,
    typeof envelope.error === 'string' ? envelope.error : 'http_error',
    typeof envelope.message === 'string'
      ? envelope.message
      : `The server answered ${response.status} ${response.statusText}.`.trim(),
  )
}
