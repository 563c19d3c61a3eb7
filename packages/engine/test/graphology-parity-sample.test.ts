import { describeGraphologyParity, PARITY_SAMPLE } from './graphology-parity.js'

// One real CAIDA file of each kind (see PARITY_SAMPLE); the largest has a file of its own,
// `pnpm test:all` adds picked files (graphology-parity-pick-N), `pnpm test:full` checks every
// file (graphology-parity.full.test.ts).
describeGraphologyParity(PARITY_SAMPLE)
