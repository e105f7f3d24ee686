-- Domain checks must not read tables. pg_restore creates the domains first and then loads
-- table data in name order, so a check that looks up app.muscles while app.exercises is
-- loaded (or app.templates while app.programs is) fails the restore. The two vocabularies
-- become constant lists: adding a muscle or a template takes a migration anyway, and
-- sql/tests/00_catalog.sql keeps each list equal to its table.

create or replace function app.are_muscles(p_names text[]) returns boolean
language sql immutable parallel safe as $$
  select p_names <@ array['abdominals', 'abductors', 'adductors', 'biceps', 'calves', 'chest', 'forearms', 'glutes',
                          'hamstrings', 'lats', 'lower back', 'middle back', 'neck', 'quadriceps', 'shoulders',
                          'traps', 'triceps']::text[]
$$;

create or replace function app.are_templates(p_ids text[]) returns boolean
language sql immutable parallel safe as $$
  select p_ids <@ array['full_body', 'legs', 'lower', 'pull', 'push', 'upper']::text[]
$$;
