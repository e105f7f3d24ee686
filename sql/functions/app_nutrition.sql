-- The food diary: entries as the API shows them, food given as values or from a food
-- (entries and meal items alike), finding an entry, and a day's totals.

create or replace function app.entry_json(p_entry app.food_entries)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'id', p_entry.id, 'client_id', p_entry.client_id, 'entry_date', p_entry.entry_date, 'meal_type', p_entry.meal_type,
    'name', p_entry.name, 'food_item_id', coalesce(p_entry.food_id, p_entry.user_food_id),
    'portion_id', p_entry.portion_seq, 'servings', p_entry.servings, 'favorite_id', p_entry.favorite_id,
    'custom_meal_id', p_entry.custom_meal_id, 'calories', p_entry.calories, 'protein_g', p_entry.protein_g,
    'carbs_g', p_entry.carbs_g, 'fat_g', p_entry.fat_g, 'source', p_entry.source, 'barcode', p_entry.barcode,
    'created_at', p_entry.created_at, 'updated_at', p_entry.updated_at)
$$;

-- Problems with food given as values (a manual entry, a favorite, a meal item): a name,
-- calories, and the three macros, which p_macros_required says whether to demand.
create or replace function app.food_values_problems(p_item jsonb, p_path text, p_macros_required boolean)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    p_path || 'name', app.field_problem(p_item, 'name', 'app.food_name'),
    p_path || 'calories', app.field_problem(p_item, 'calories', 'app.kcal'),
    p_path || 'protein_g', app.field_problem(p_item, 'protein_g', 'app.grams', p_macros_required),
    p_path || 'carbs_g', app.field_problem(p_item, 'carbs_g', 'app.grams', p_macros_required),
    p_path || 'fat_g', app.field_problem(p_item, 'fat_g', 'app.grams', p_macros_required))
$$;

-- Name and macros for an entry or a meal item from {food_item_id, portion_id?, servings?}:
-- per-serving × servings. Problems are named under p_path.
create or replace function app.food_item_values(p_user_id uuid, p_item jsonb, p_path text,
  out problems jsonb, out name text, out food_id uuid, out user_food_id uuid, out portion_seq integer,
  out servings numeric, out calories numeric, out protein_g numeric, out carbs_g numeric, out fat_g numeric,
  out barcode text)
language plpgsql
stable
as $$
declare
  v_macros record;
begin
  problems := jsonb_strip_nulls(jsonb_build_object(
    p_path || 'servings', app.field_problem(p_item, 'servings', 'app.servings', false),
    p_path || 'portion_id', app.field_problem(p_item, 'portion_id', 'integer', false),
    p_path || 'food_item_id', app.field_problem(p_item, 'food_item_id', 'uuid')));
  if problems <> '{}' then
    return;
  end if;
  servings := coalesce(app.read_number(p_item, 'servings'), 1);
  portion_seq := app.read_integer(p_item, 'portion_id');
  select m.* into v_macros
    from app.food_macros(p_user_id, app.read_uuid(p_item, 'food_item_id'), portion_seq, servings) as m;
  if v_macros.name is null then
    problems := case when portion_seq is not null
                       and exists (select from app.find_food(p_user_id, app.read_uuid(p_item, 'food_item_id')) as f
                                    where f.id is not null)
                     then jsonb_build_object(p_path || 'portion_id', 'is not a portion of this food')
                     else jsonb_build_object(p_path || 'food_item_id', 'is not a known food') end;
    return;
  end if;
  name := v_macros.name;
  calories := v_macros.calories;
  protein_g := v_macros.protein_g;
  carbs_g := v_macros.carbs_g;
  fat_g := v_macros.fat_g;
  barcode := v_macros.barcode;
  if v_macros.is_user_food then
    user_food_id := app.read_uuid(p_item, 'food_item_id');
  else
    food_id := app.read_uuid(p_item, 'food_item_id');
  end if;
end
$$;

grant execute on function
  app.food_values_problems(jsonb, text, boolean),
  app.entry_json(app.food_entries),
  app.food_item_values(uuid, jsonb, text)
to liftbase_api;

-- The one writer of diary entries: POST /nutrition/entries, the diary imports and the
-- Liftbase import insert through it, so every entry is written by the same statement (and
-- fires the same triggers). p_entries are the rows to write, with values the caller has
-- worked out (a food's values × servings...); their user_id is p_user_id's. An entry
-- without an id is given one, without a meal_type is a snack, and without created_at is
-- created now (the columns' defaults, which an insert of many rows cannot leave to the
-- columns: a missing value is a null there). An id or client_id the user holds already is
-- skipped. Returns the entries written.
create or replace function app.write_food_entries(p_user_id uuid, p_entries app.food_entries[])
returns setof app.food_entries
language plpgsql
as $$
declare
  v_ids uuid[];
begin
  -- The ids are drawn first: Citus sends no statement that calls a volatile function.
  v_ids := array(select coalesce(x.id, gen_random_uuid()) from unnest(p_entries) with ordinality as x
                 order by x.ordinality);
  -- Written from the user's settings row, as a Citus worker takes an insert whole: an
  -- insert from a plain select goes through COPY, which row-level security refuses
  -- (docs/scaling.md).
  return query
  insert into app.food_entries as n (user_id, id, client_id, import_key, entry_date, meal_type, name, food_id,
                                     user_food_id, portion_seq, servings, favorite_id, custom_meal_id, calories,
                                     protein_g, carbs_g, fat_g, source, barcode, created_at)
  select u.user_id, k.id, r.client_id, r.import_key, r.entry_date, coalesce(r.meal_type, 'snack'), r.name, r.food_id,
         r.user_food_id, r.portion_seq, r.servings, r.favorite_id, r.custom_meal_id, r.calories, r.protein_g, r.carbs_g,
         r.fat_g, r.source, r.barcode, coalesce(r.created_at, now())
    from app.user_settings as u
   cross join unnest(p_entries) with ordinality as r
    join unnest(v_ids) with ordinality as k (id, n) on k.n = r.ordinality
   where u.user_id = p_user_id
  on conflict do nothing
  returning n.*;
end
$$;
grant execute on function app.write_food_entries(uuid, app.food_entries[]) to liftbase_api;

create or replace function app.find_entry(p_user_id uuid, p_args jsonb)
returns app.food_entries
language plpgsql
stable
as $$
declare
  v_entry app.food_entries;
begin
  select e.* into v_entry from app.food_entries as e
   where e.user_id = p_user_id and e.id = app.id_parameter(p_args, 'id');
  if v_entry.id is null then
    perform app.raise_error(404, 'entry_not_found', 'No such diary entry.');
  end if;
  return v_entry;
end
$$;
grant execute on function app.find_entry(uuid, jsonb) to liftbase_api;

-- A user's diary totals for one day: the sums /nutrition/daily shows and the nutrition
-- adherence report compares with the target.
-- PL/pgSQL, not SQL: a SQL function that reads a table is planned anew on every call, and
-- this one runs on every /nutrition/daily and for every user-day of the adherence report.
create or replace function app.daily_totals(p_user_id uuid, p_date date)
returns jsonb
language plpgsql
stable
as $$
begin
  return (select jsonb_build_object('calories', coalesce(sum(e.calories), 0),
                                    'protein_g', coalesce(sum(e.protein_g), 0),
                                    'carbs_g', coalesce(sum(e.carbs_g), 0), 'fat_g', coalesce(sum(e.fat_g), 0))
            from app.food_entries as e where e.user_id = p_user_id and e.entry_date = p_date);
end
$$;

grant execute on function app.daily_totals(uuid, date) to liftbase_api, liftbase_reporting_owner;

-- The foods each user logged (app.food_usage, migration 0020), rebuilt from the diary: for
-- one user, or for every user when p_user_id is null. Idempotent; what the triggers on
-- app.food_entries keep in every write's transaction, counted afresh. For the operator's
-- CLI (it runs as the owner): it acts as each user in turn, so row-level security applies
-- as for any write. Returns how many rows it wrote.
create or replace function app.rebuild_food_usage(p_user_id uuid default null)
returns integer
language plpgsql
as $$
declare
  v_previous text := current_setting('liftbase.user_id', true);
  v_user_id uuid;
  v_rows integer := 0;
  v_count integer;
begin
  for v_user_id in select u.id from auth.users as u where p_user_id is null or u.id = p_user_id order by u.id loop
    perform auth.act_as(v_user_id);
    delete from app.food_usage as u where u.user_id = v_user_id;
    insert into app.food_usage (user_id, food_id, name, entries)
    select e.user_id, coalesce(e.food_id, e.user_food_id), f.name, count(*)
      from app.food_entries as e
      left join app.foods as f on f.id = e.food_id
     where e.user_id = v_user_id and coalesce(e.food_id, e.user_food_id) is not null
     group by 1, 2, 3;
    get diagnostics v_count = row_count;
    v_rows := v_rows + v_count;
  end loop;
  perform auth.act_as(nullif(v_previous, '')::uuid);
  return v_rows;
end
$$;

-- The rule, one function for the three statements: an insert adds its entries per user and
-- food, a delete takes them away (a row whose count reaches zero goes), an update does both
-- for the entries whose food it changed (most updates change none). Statement triggers with
-- transition tables: an import of thousands of entries, or an account's deletion, is one
-- pass that changes each user's food once, not a call per row.
-- Row-level security applies here as to the diary: each user's rows are changed acting as
-- that user. The writer of an entry is that user already, except where a foreign key acts
-- for the database itself (an operator deleting a catalog food sets the entries' food to
-- null in every user's diary); then the function acts as each user in turn and gives the
-- request's own user back at the end.
create or replace function app.keep_food_usage() returns trigger
language plpgsql
as $$
declare
  v_acting text := current_setting('liftbase.user_id', true);
  v_as text := v_acting;
  v_changes refcursor;
  v_change record;
begin
  -- Entries per user and food after the statement minus before, with a catalog food's name.
  if tg_op = 'INSERT' then
    open v_changes for
      select n.user_id, coalesce(n.food_id, n.user_food_id) as food_id, f.name, count(*)::integer as entries
        from new_entries as n
        left join app.foods as f on f.id = n.food_id
       where coalesce(n.food_id, n.user_food_id) is not null
       group by 1, 2, 3
       order by 1, 2;
  elsif tg_op = 'DELETE' then
    open v_changes for
      select o.user_id, coalesce(o.food_id, o.user_food_id) as food_id, null::text as name,
             -count(*)::integer as entries
        from old_entries as o
       where coalesce(o.food_id, o.user_food_id) is not null
       group by 1, 2
       order by 1, 2;
  else
    open v_changes for
      select c.user_id, c.food_id, f.name, sum(c.entries)::integer as entries
        from (select n.user_id, coalesce(n.food_id, n.user_food_id) as food_id, n.food_id as catalog_food_id,
                     1 as entries
                from new_entries as n
              union all
              select o.user_id, coalesce(o.food_id, o.user_food_id), o.food_id, -1
                from old_entries as o) as c
        left join app.foods as f on f.id = c.catalog_food_id
       where c.food_id is not null
       group by 1, 2, 3
      having sum(c.entries) <> 0
       order by 1, 2;
  end if;
  loop
    fetch v_changes into v_change;
    exit when not found;
    if v_change.user_id::text is distinct from v_as then
      v_as := v_change.user_id::text;
      perform set_config('liftbase.user_id', v_as, true);
    end if;
    if v_change.entries > 0 then
      insert into app.food_usage as u (user_id, food_id, name, entries)
      values (v_change.user_id, v_change.food_id, v_change.name, v_change.entries)
      on conflict (user_id, food_id) do update set entries = u.entries + excluded.entries;
    else
      update app.food_usage as u set entries = u.entries + v_change.entries
       where u.user_id = v_change.user_id and u.food_id = v_change.food_id and u.entries > -v_change.entries;
      if not found then
        delete from app.food_usage as u where u.user_id = v_change.user_id and u.food_id = v_change.food_id;
      end if;
    end if;
  end loop;
  close v_changes;
  if v_as is distinct from v_acting then
    perform set_config('liftbase.user_id', coalesce(v_acting, ''), true);
  end if;
  return null;
end
$$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
-- 'single node': Citus runs no statement trigger with transition tables on a distributed
-- table; there liftbase_meta_distribution.sql declares a row trigger for it instead.
select liftbase_meta.keep_trigger($$CREATE TRIGGER food_entries_usage_delete AFTER DELETE ON app.food_entries REFERENCING OLD TABLE AS old_entries FOR EACH STATEMENT EXECUTE FUNCTION app.keep_food_usage()$$, 'single node');
select liftbase_meta.keep_trigger($$CREATE TRIGGER food_entries_usage_insert AFTER INSERT ON app.food_entries REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION app.keep_food_usage()$$, 'single node');
select liftbase_meta.keep_trigger($$CREATE TRIGGER food_entries_usage_update AFTER UPDATE ON app.food_entries REFERENCING OLD TABLE AS old_entries NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION app.keep_food_usage()$$, 'single node');
