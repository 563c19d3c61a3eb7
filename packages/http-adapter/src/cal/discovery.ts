import { z } from 'zod'
import type { Route } from '../route.js'

type JsonSchema = Record<string, unknown>

/** One WordPress-style argument description. */
export interface DiscoveryArg {
  required: boolean
  [keyword: string]: unknown
}

/** One endpoint of a route: the methods sharing the same arguments. */
export interface DiscoveryEndpoint {
  methods: string[]
  args: Record<string, DiscoveryArg>
}

/** One route of the namespace index. */
export interface DiscoveryRoute {
  namespace: string
  methods: string[]
  endpoints: DiscoveryEndpoint[]
  _links?: { self: { href: string }[] }
}

const KEYWORDS = [
  'type',
  'description',
  'default',
  'enum',
  'items',
  'format',
  'minimum',
  'maximum',
  'pattern',
  'anyOf',
  'properties',
] as const

/** `:id` → `(?P<id>\d+)`, `:slug` → `(?P<slug>[^/]+)`, as WordPress route keys read. */
export const wordpressPath = (path: string) =>
  path.replace(/:(\w+)/g, (_m, name: string) =>
    name === 'id' ? `(?P<${name}>\\d+)` : `(?P<${name}>[^/]+)`,
  )

function argsOf(schema: z.ZodType | undefined): Record<string, DiscoveryArg> {
  if (!schema) return {}
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set((json.required as string[] | undefined) ?? [])
  const out: Record<string, DiscoveryArg> = {}
  for (const [name, prop] of Object.entries(properties)) {
    const arg: DiscoveryArg = { required: required.has(name) }
    for (const key of KEYWORDS) if (prop[key] !== undefined) arg[key] = prop[key]
    if (arg.type === undefined && Array.isArray(prop.anyOf)) {
      const types = [
        ...new Set(
          (prop.anyOf as JsonSchema[]).flatMap((s) =>
            typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? s.type : [],
          ),
        ),
      ]
      if (types.length) arg.type = types.length === 1 ? types[0] : types
    }
    out[name] = arg
  }
  return out
}

/**
 * The `routes` member of a WordPress namespace index, built from the route table: each path
 * (as a WordPress regex key under `/{namespace}`) with its methods and one endpoint per group
 * of methods sharing the same arguments (path parameters, then query or body fields).
 */
export function discoveryRoutes(
  routes: readonly Route[],
  options: { namespace: string; base: string; origin: string },
): Record<string, DiscoveryRoute> {
  const out: Record<string, DiscoveryRoute> = {}
  for (const r of routes) {
    const key = `/${options.namespace}${wordpressPath(r.path === '/' ? '' : r.path)}`
    let entry = out[key]
    if (!entry) {
      entry = { namespace: options.namespace, methods: [], endpoints: [] }
      if (!r.path.includes(':')) {
        entry._links = {
          self: [{ href: `${options.origin}${options.base}${r.path === '/' ? '' : r.path}` }],
        }
      }
      out[key] = entry
    }
    const args = {
      ...argsOf(r.params),
      ...argsOf(r.method === 'GET' || r.method === 'DELETE' ? r.query : r.body),
    }
    for (const name of Object.keys(argsOf(r.params))) {
      const arg = args[name]
      if (arg) arg.required = true
    }
    entry.methods.push(r.method)
    const same = entry.endpoints.find((e) => JSON.stringify(e.args) === JSON.stringify(args))
    if (same) same.methods.push(r.method)
    else entry.endpoints.push({ methods: [r.method], args })
  }
  return out
}
