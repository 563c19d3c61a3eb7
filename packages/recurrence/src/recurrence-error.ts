/** A recurrence the spec refuses; the message says what is wrong (for a 400 on `recurrence`). */
export class RecurrenceError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'RecurrenceError'
  }
}
