/** Thrown by {@link syncFromProvider} when another run (any process on the database) holds the refresh lock. */
export class RefreshInProgressError extends Error {
  constructor(message = 'a refresh is already running') {
    super(message)
    this.name = 'RefreshInProgressError'
  }
}
