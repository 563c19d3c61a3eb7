// Module resolve hook: adds the "source" export condition, so workspace packages resolve to
// their TypeScript sources (what `node --conditions=source` does, for a process already running).
export async function resolve(specifier, context, next) {
  const conditions = context.conditions.includes('source')
    ? context.conditions
    : ['source', ...context.conditions]
  return next(specifier, { ...context, conditions })
}
