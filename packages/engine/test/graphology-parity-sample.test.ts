import { describeGraphologyParity } from './graphology-parity.js'

// One real CAIDA file of each kind (see PARITY_SAMPLE); every other file is checked by the slow
// suites graphology-parity-1 and -2 (`pnpm test:all`).
describeGraphologyParity('sample')
