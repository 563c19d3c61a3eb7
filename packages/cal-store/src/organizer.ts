import type {
  NamedRecord,
  NamedRecordInput,
  NamedRecordListFilter,
  PatchOf,
} from './named-record.js'

/** An organizer as stored; `name` is `organizer` in the API. */
export interface Organizer extends NamedRecord {
  email: string | null
}

/** Fields to create an organizer: `name` is required. */
export interface OrganizerInput extends NamedRecordInput {
  email?: string | null
}

/** A partial update: absent fields stay unchanged; `null` clears an optional field. */
export type OrganizerPatch = PatchOf<OrganizerInput>

/** Filters of {@link OrganizerRepository.list}. Order: name ascending (case-insensitive), then id. */
export interface OrganizerListFilter extends NamedRecordListFilter {
  /** All words, case-insensitive, each in name or description. */
  search?: string
  /** Only organizers of this event. */
  event?: number
}
