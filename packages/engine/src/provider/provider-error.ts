/**
 * The provider could not deliver: unreachable (network error or timeout, after the retries),
 * or it answered with an HTTP error status (`status`), or a local mirror folder or file is
 * missing. `url` is what was asked for.
 */
export class ProviderError extends Error {
  override readonly name = 'ProviderError'
  readonly url: string
  readonly status?: number

  constructor(message: string, url: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause })
    this.url = url
    if (options.status !== undefined) this.status = options.status
  }
}

/** The error of a download refused by the `maxDownloadBytes` cap. */
export function tooLarge(url: string, maxBytes: number): ProviderError {
  return new ProviderError(
    `download refused: ${url} is larger than the download size cap of ${maxBytes} bytes ` +
      `(maxDownloadBytes)`,
    url,
  )
}
