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
