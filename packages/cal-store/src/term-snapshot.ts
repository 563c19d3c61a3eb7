import { CalUnknownReferenceError } from './errors.js'
import { validIds } from './id-list.js'
import type { CalDb } from './store-context.js'
import type { Taxonomy } from './term.js'
import type { TermResolver } from './term-resolver.js'

interface TermRow {
  id: number
  taxonomy: Taxonomy
  slug: string
  parent_id: number | null
}

/** Categories and tags in memory, resolving filter refs as `event-list.ts` does by SQL. */
export class TermSnapshot implements TermResolver {
  private readonly byId = new Map<number, TermRow>()
  private readonly bySlug = new Map<string, TermRow>()
  private readonly children = new Map<number, number[]>()

  constructor(rows: readonly TermRow[]) {
    for (const row of rows) {
      this.byId.set(row.id, row)
      this.bySlug.set(`${row.taxonomy}\u0000${row.slug}`, row)
      if (row.parent_id !== null) {
        const list = this.children.get(row.parent_id) ?? []
        list.push(row.id)
        this.children.set(row.parent_id, list)
      }
    }
  }

  async resolve(taxonomy: Taxonomy, field: string, refs: readonly (number | string)[]) {
    const valid = new Set(validIds(refs.filter((r): r is number => typeof r === 'number')))
    const ids = new Set<number>()
    for (const ref of refs) {
      const row =
        typeof ref === 'number'
          ? valid.has(ref)
            ? this.byId.get(ref)
            : undefined
          : this.bySlug.get(`${taxonomy}\u0000${ref}`)
      if (!row || row.taxonomy !== taxonomy) throw new CalUnknownReferenceError(field, ref)
      ids.add(row.id)
    }
    return [...ids]
  }

  async withDescendants(ids: number[]) {
    // A set of visited ids: the walk ends even if a parent cycle slipped into the tree.
    const found = new Set(ids.filter((id) => this.byId.has(id)))
    const queue = [...found]
    for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
      for (const child of this.children.get(id) ?? []) {
        if (!found.has(child)) {
          found.add(child)
          queue.push(child)
        }
      }
    }
    return [...found]
  }
}

/** Every term, read now. */
export async function readTermSnapshot(db: CalDb): Promise<TermSnapshot> {
  return new TermSnapshot(
    await db.selectFrom('cal_term').select(['id', 'taxonomy', 'slug', 'parent_id']).execute(),
  )
}
