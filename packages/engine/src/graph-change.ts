/** A link between two ASes, as AS numbers; order does not matter (`[a, b]` is `[b, a]`). */
export type AsLink = readonly [number, number]

/**
 * A counterfactual change to an AS graph (see {@link whatIf}): AS numbers, not node indices.
 * ASes are removed with every link of theirs; then the named links are removed; then the
 * named links are added (an AS they name that is not in the graph joins it).
 */
export interface GraphChange {
  removeAsns?: readonly number[]
  removeLinks?: readonly AsLink[]
  addLinks?: readonly AsLink[]
}
