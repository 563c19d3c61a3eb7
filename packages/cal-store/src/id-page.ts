/** A page of row ids (with their starts, in ms) and the total of a plan. */
export interface IdPage {
  ids: number[]
  /** Unboxed: a page placed among series can hold thousands of them (its whole prefix). */
  starts: Float64Array
  total: number
}
