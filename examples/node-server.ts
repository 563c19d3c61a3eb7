// Node host: see README. (filled in by the CLI work)
