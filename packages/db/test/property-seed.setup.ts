// CI runs every property on one printed seed (`.ci/run` sets FC_SEED): a guard that fails only
// on a defect, never on the luck of a draw. `pnpm test`, `test:flakes` and `test:full` leave it
// unset, so fast-check draws afresh each run there and a failure prints the seed that repeats it.
import fc from 'fast-check'

const seed = process.env.FC_SEED
if (seed !== undefined) fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: Number(seed) })
