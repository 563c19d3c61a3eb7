// Packing (`pnpm pack`, `pnpm publish`): the published package.json leaves out the "source"
// export condition. Inside the workspace it points tests, tsx and tsc at src/ (vitest.config.ts,
// tsconfig.base.json); in a tarball there is no src/, and a consumer whose own tooling sets that
// common condition name would otherwise be sent to files that do not exist.
function withoutSource(entry) {
  if (typeof entry !== 'object' || entry === null) return entry
  return Object.fromEntries(
    Object.entries(entry)
      .filter(([condition]) => condition !== 'source')
      .map(([key, value]) => [key, withoutSource(value)]),
  )
}

module.exports = {
  hooks: {
    beforePacking(pkg) {
      if (pkg.exports) pkg.exports = withoutSource(pkg.exports)
      return pkg
    },
  },
}
