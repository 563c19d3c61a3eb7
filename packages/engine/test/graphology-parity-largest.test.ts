import { describeGraphologyParity, PARITY_LARGEST } from './graphology-parity.js'

// The largest sample file, alone: graphology-cores on its 500k links takes most of a file's time.
describeGraphologyParity([PARITY_LARGEST])
