import { describeGraphologyParity } from './graphology-parity.js'

// Half of the real CAIDA files outside the sample (every other one); graphology-parity-1 has the
// rest, graphology-parity-sample.test.ts (default suite) the sample.
describeGraphologyParity(1)
