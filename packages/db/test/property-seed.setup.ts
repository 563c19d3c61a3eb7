// CI runs every property on one printed seed (`.ci/run` sets FC_SEED): a guard that fails only
// on a defect, never on the luck of a draw. `pnpm test`, `test:flakes` and `test:full` leave it
// unset, so fast-check draws afresh each run there and a failure prints the seed that repeats it.
import fc from 'fast-check'

const seed = process.env.FC_SEED
// fast-check takes any number; NaN from a mistyped setting would pin nothing that repeats.
if (seed !== undefined && !Number.isSafeInteger(Number(seed.trim() || Number.NaN)))
  throw new RangeError(`FC_SEED must be an integer, got ${JSON.stringify(seed)}`)
if (seed !== undefined) fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: Number(seed) })
