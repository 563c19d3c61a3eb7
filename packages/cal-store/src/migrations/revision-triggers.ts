/**
 * The row-change triggers of the revision (0007) and of the change log (0011): name suffix,
 * event, transition table.
 */
export const REVISION_TRIGGERS = [
  ['insert', 'insert', 'new'],
  ['update', 'update', 'new'],
  ['delete', 'delete', 'old'],
] as const
