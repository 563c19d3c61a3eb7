import { z } from 'zod'
import type { Api, Route } from './route.js'

type JsonSchema = Record<string, unknown>

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
  }) as JsonSchema
  return rest
}

/** itty-router `:name` segments as OpenAPI `{name}` templates. */
export const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')

/** One OpenAPI parameter per property of an object schema. */
export function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query') {
  if (!schema) return []
  const json = toSchema(schema, 'input')
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>
  const required = new Set((json.required as string[] | undefined) ?? [])
  return Object.entries(properties).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    ...(typeof s.description === 'string' ? { description: s.description } : {}),
    schema: s,
  }))
}

function operation(r: Route) {
  const responses: Record<string, unknown> = {}
  for (const [status, { description, schema, alternatives }] of Object.entries(
    r.responses ?? { 200: { description: 'OK' } },
  )) {
    const content: Record<string, unknown> = {}
    if (schema) content['application/json'] = { schema: toSchema(schema, 'output') }
    for (const [type, text] of Object.entries(alternatives ?? {})) {
      content[type] = { schema: { type: 'string', description: text } }
    }
    responses[status] = Object.keys(content).length ? { description, content } : { description }
  }
  return {
    summary: r.summary,
    ...(r.description ? { description: r.description } : {}),
    parameters: [...parametersOf(r.params, 'path'), ...parametersOf(r.query, 'query')],
    ...(r.body
      ? { requestBody: { content: { 'application/json': { schema: toSchema(r.body, 'input') } } } }
      : {}),
    responses,
  }
}

/**
 * An OpenAPI 3.1 document for one API, generated from the zod schemas its routes validate
 * with, so the document and the validation cannot drift apart.
 */
export function openApiDocument(api: Pick<Api, 'base' | 'title' | 'version' | 'routes'>) {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const r of api.routes) {
    const path = openApiPath(api.base + r.path)
    paths[path] ??= {}
    paths[path][r.method.toLowerCase()] = operation(r)
  }
  return { openapi: '3.1.0', info: { title: api.title, version: api.version }, paths }
}
