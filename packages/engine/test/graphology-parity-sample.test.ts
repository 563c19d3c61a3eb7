import { describeGraphologyParity } from './graphology-parity.js'

// One real CAIDA file of each kind (see PARITY_SAMPLE), and in `pnpm test:all` a few more picked
// each run; `pnpm test:full` checks every file (graphology-parity.full.test.ts).
describeGraphologyParity('sample')
