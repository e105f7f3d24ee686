-- What a row the tables refused means, in words for the person importing. The database's
-- own text names constraints, types and tables and is never sent to the client: the
-- section and field names used here are those of the import document.

-- The document section a table's rows come from (docs/export-format.md).
create or replace function app.import_section_of(p_table text)
returns text
language sql
immutable
as $$
  select case p_table
    when 'session_exercises' then 'training_sessions' when 'session_sets' then 'training_sessions'
    when 'plan_exercises' then 'plans' when 'custom_meal_items' then 'custom_meals'
    when 'program_phases' then 'programs' when 'program_sessions' then 'programs'
    when 'program_exercise_state' then 'programs' when 'user_settings' then 'settings'
    when 'user_profiles' then 'profile' when 'user_equipment' then 'equipment_selection'
    when 'user_exclusions' then 'exclusions' when 'user_setup' then 'setup'
    when 'target_overrides' then 'target_override' else p_table end
$$;

-- The message for an error of class 22 (data exception) or 23 (integrity constraint), from
-- the fields of its diagnostics: a domain's rule is its COMMENT, a constraint is described
-- by the columns it covers (user_id, which every key leads with, left out).
create or replace function app.import_error_message(p_state text, p_schema text, p_table text, p_column text,
  p_constraint text, p_datatype text)
returns text
language sql
stable
as $$
  select coalesce(app.import_section_of(nullif(n.table_name, '')) || ': ', '') || case
    when p_state = '23502' then coalesce(nullif(p_column, ''), 'a value') || ' is required'
    when p_state = '23503' then coalesce(k.columns, 'a reference')
                                || ' names a row that is neither in the document nor in this account'
    when p_state = '23505' then 'two rows have the same ' || coalesce(k.columns, 'key')
    when p_state = '23514' and d.rule is not null then coalesce(nullif(p_column, ''), p_datatype) || ' ' || d.rule
    when p_state = '23514' and k.columns is not null then 'these values of ' || k.columns || ' are not allowed together'
    when p_state like '23%' then 'a row breaks a rule of the data'
    when p_state in ('22P02', '22007', '22008') then 'a value is not of the expected form (a number, date, time or id)'
    when p_state = '22003' then 'a number is out of range'
    else 'a value cannot be stored'
  end
    -- On Citus a worker names the shard: the table and the constraint with the shard's id
    -- appended (session_exercises_102033). Named as the table is, they say the same.
    from (select coalesce(left(p_table, -length(s.shard_id) - 1), p_table) as table_name,
                 case when right(p_constraint, length(s.shard_id) + 1) = '_' || s.shard_id
                      then left(p_constraint, -length(s.shard_id) - 1) else p_constraint end as constraint_name
            from (select case when to_regclass(quote_ident(p_schema) || '.' || quote_ident(p_table)) is null
                              then substring(p_table from '_([0-9]+)$') end as shard_id) as s) as n
   cross join lateral (
          select string_agg(a.attname, ' and ' order by c.n) as columns
            from pg_constraint as x
           cross join unnest(x.conkey) with ordinality as c (attnum, n)
            join pg_attribute as a on a.attrelid = x.conrelid and a.attnum = c.attnum
           where x.conname = n.constraint_name and a.attname <> 'user_id'
             and x.conrelid = to_regclass(quote_ident(p_schema) || '.' || quote_ident(n.table_name))) as k
   cross join (select obj_description(to_regtype(quote_ident(p_schema) || '.' || quote_ident(p_datatype)), 'pg_type')
                   as rule) as d
$$;

-- The same, from an error whose fields may be missing: Citus passes a worker's error on with
-- its message, detail and hint only, so the table, column and constraint are read from the
-- message PostgreSQL wrote ('insert or update on table "x" violates foreign key constraint
-- "y"', 'null value in column "c" of relation "x" ...'); the fields win where they are set.
create or replace function app.import_error_message(p_state text, p_schema text, p_table text, p_column text,
  p_constraint text, p_datatype text, p_message text)
returns text
language sql
stable
as $$
  select app.import_error_message(
    p_state, coalesce(nullif(p_schema, ''), 'app'),
    coalesce(nullif(p_table, ''), substring(p_message from '(?:on table|for relation|of relation) "([^"]+)"')),
    coalesce(nullif(p_column, ''), substring(p_message from 'in column "([^"]+)"')),
    coalesce(nullif(p_constraint, ''), substring(p_message from 'constraint "([^"]+)"')),
    p_datatype)
$$;

grant execute on function
  app.import_section_of(text),
  app.import_error_message(text, text, text, text, text, text),
  app.import_error_message(text, text, text, text, text, text, text)
to liftbase_api;
