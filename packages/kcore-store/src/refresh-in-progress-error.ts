import { KcoreStoreError } from './errors.js'

/** Thrown by {@link syncFromProvider} when another run (any process on the database) holds the refresh lock. */
export class RefreshInProgressError extends KcoreStoreError {
  constructor(message = 'a refresh is already running') {
    super('refresh_in_progress', message)
    this.name = 'RefreshInProgressError'
  }
}
