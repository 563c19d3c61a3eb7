/**
 * What an empty database is, for the harness that hands used databases out again: the
 * statements that bring one back to it, and a fingerprint of what a test could leave behind.
 */

/**
 * Every schema but the system ones dropped (with all in them) and `public` made anew as
 * `initdb` makes it; every extension but plpgsql dropped. Run on the database itself.
 */
export const EMPTY_AGAIN = [
  `do $$ declare s name; begin
     for s in select nspname from pg_namespace
       where nspname not in ('pg_catalog', 'information_schema', 'pg_toast')
         and nspname not like 'pg_temp_%' and nspname not like 'pg_toast_temp_%'
     loop execute format('drop schema %I cascade', s); end loop;
   end $$`,
  'create schema public authorization pg_database_owner',
  'grant usage on schema public to public',
  `comment on schema public is 'standard public schema'`,
  `do $$ declare e name; begin
     for e in select extname from pg_extension where extname <> 'plpgsql'
     loop execute format('drop extension %I cascade', e); end loop;
   end $$`,
]

/**
 * What a test could leave behind, as one string `f`: schemas with their owners and
 * privileges, extensions, event triggers, per-database settings, large objects, relations,
 * types and functions outside the system schemas; with `roles`, the roles too (a PGlite
 * cluster is the test's alone; a PostgreSQL server's roles are everybody's).
 */
export function fingerprintQuery(roles: boolean): string {
  return `select concat_ws('|',
    (select string_agg(nspname || ':' || coalesce(nspacl::text, '') || ':' || nspowner::regrole::text, ',' order by nspname)
       from pg_namespace where nspname not like 'pg_temp_%' and nspname not like 'pg_toast_temp_%'),
    (select string_agg(extname, ',' order by extname) from pg_extension),
    ${roles ? "(select string_agg(rolname, ',' order by rolname) from pg_roles)," : ''}
    (select count(*) from pg_event_trigger),
    (select count(*) from pg_db_role_setting),
    (select count(*) from pg_largeobject_metadata),
    (select count(*) from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')),
    (select count(*) from pg_proc p join pg_namespace n on n.oid = p.pronamespace
       where n.nspname not in ('pg_catalog', 'information_schema')),
    (select count(*) from pg_type t join pg_namespace n on n.oid = t.typnamespace
       where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast'))
  ) as f`
}
