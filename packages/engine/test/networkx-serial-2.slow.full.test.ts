import { describeNetworkxParity } from './networkx-parity.js'

// A serial-2 file (a 4th column), alone: NetworkX parses and decomposes its 400k links slowly.
describeNetworkxParity(['20151201.as-rel2.txt.bz2'])
