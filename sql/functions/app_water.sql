-- Water (docs/health.md): the daily target, the checks of an entry, its JSON and a day's
-- view.

-- The account's daily water target in ml: its override, else 35 ml per kg of the latest
-- weigh-in rounded to 50 ml, kept within the override's range (500–10,000 ml); null without
-- either. 35 ml/kg is the middle of the 30–40 ml/kg adults are commonly advised, and what a
-- 70 kg person's 2.5 l works out to.
create or replace function app.water_target_ml(p_user_id uuid)
returns integer
language plpgsql
stable
as $$
declare
  v_override integer;
  v_weight numeric;
begin
  select o.water_ml into v_override from app.target_overrides as o where o.user_id = p_user_id;
  if v_override is not null then
    return v_override;
  end if;
  select b.weight_kg into v_weight from app.body_metrics as b
   where b.user_id = p_user_id order by b.recorded_at desc, b.id desc limit 1;
  return least(greatest(round(35 * v_weight / 50) * 50, 500), 10000)::integer;
end
$$;

-- Problems with a water entry's body: amount_ml, recorded_at (not in the future),
-- entry_date and source. On a create (p_creating) amount_ml is required and the others take
-- their defaults; on a change a member sent must not be null.
create or replace function app.water_entry_problems(p_body jsonb, p_creating boolean)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object(
    'amount_ml', app.field_problem(p_body, 'amount_ml', 'app.water_ml', p_creating or p_body ? 'amount_ml'),
    'entry_date', app.field_problem(p_body, 'entry_date', 'app.calendar_date', not p_creating and p_body ? 'entry_date'))
    || app.measurement_time_problems(p_body, p_creating)
$$;

-- The user's water entry {id} of the path, or 404 water_entry_not_found.
create or replace function app.find_water_entry(p_user_id uuid, p_args jsonb)
returns app.water_entries
language plpgsql
stable
as $$
declare
  v_entry app.water_entries;
begin
  select w.* into v_entry from app.water_entries as w
   where w.user_id = p_user_id and w.id = app.number_id_parameter(p_args, 'id');
  if v_entry.id is null then
    perform app.raise_error(404, 'water_entry_not_found', 'No such water entry.');
  end if;
  return v_entry;
end
$$;

create or replace function app.water_entry_json(p_entry app.water_entries)
returns jsonb
language sql
stable
as $$
  select jsonb_build_object('id', p_entry.id, 'entry_date', p_entry.entry_date, 'recorded_at', p_entry.recorded_at,
                            'amount_ml', p_entry.amount_ml, 'source', p_entry.source, 'created_at', p_entry.created_at,
                            'updated_at', p_entry.updated_at)
$$;

-- A day's water: {total_ml, target_ml, remaining_ml, entries}, one index range of the
-- user's day; what GET /nutrition/daily shows beside the food totals.
create or replace function app.water_day_totals(p_user_id uuid, p_date date)
returns jsonb
language plpgsql
stable
as $$
declare
  v_target integer := app.water_target_ml(p_user_id);
  v_total numeric;
  v_entries bigint;
begin
  select coalesce(sum(w.amount_ml), 0), count(*) into v_total, v_entries
    from app.water_entries as w where w.user_id = p_user_id and w.entry_date = p_date;
  return jsonb_build_object('total_ml', v_total, 'target_ml', v_target, 'remaining_ml', v_target - v_total,
                            'entries', v_entries);
end
$$;

-- The reporting owner runs it through app.effective_targets (the nutrition adherence report).
grant execute on function app.water_target_ml(uuid) to liftbase_api, liftbase_reporting_owner;
grant execute on function
  app.water_entry_problems(jsonb, boolean),
  app.find_water_entry(uuid, jsonb),
  app.water_entry_json(app.water_entries),
  app.water_day_totals(uuid, date)
to liftbase_api;
