-- On Citus, the diary's row trigger of 0060 (liftbase_meta.keep_food_usage_per_row, on the
-- shards of app.food_entries) inserted into app.food_usage with the catalog food's name as a
-- subquery in its values, which Citus refuses ("subqueries are not supported within INSERT
-- queries"): the name is read first. On a single node this function is never used.
create or replace function liftbase_meta.keep_food_usage_per_row()
returns trigger
language plpgsql
set search_path = pg_catalog, pg_temp
as $function$
declare
  v_food uuid;
  v_name text;
begin
  if tg_op = 'UPDATE' and old.user_id = new.user_id and old.food_id is not distinct from new.food_id
     and old.user_food_id is not distinct from new.user_food_id then
    return null;
  end if;
  if tg_op in ('DELETE', 'UPDATE') then
    v_food := coalesce(old.food_id, old.user_food_id);
    if v_food is not null then
      update app.food_usage as u set entries = u.entries - 1
       where u.user_id = old.user_id and u.food_id = v_food and u.entries > 1;
      if not found then
        delete from app.food_usage as u where u.user_id = old.user_id and u.food_id = v_food;
      end if;
    end if;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    v_food := coalesce(new.food_id, new.user_food_id);
    if v_food is not null then
      if new.food_id is not null then
        select f.name into v_name from app.foods as f where f.id = new.food_id;
      end if;
      insert into app.food_usage as u (user_id, food_id, name, entries)
      values (new.user_id, v_food, v_name, 1)
      on conflict (user_id, food_id) do update set entries = u.entries + 1;
    end if;
  end if;
  return null;
end
$function$;
