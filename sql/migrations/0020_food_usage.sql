-- The foods each user has logged, kept beside the diary so that food search can rank the
-- foods a user logged before first without reading their diary: every keystroke of a
-- search read every entry the user ever made (15,000 over five years) to mark at most a
-- page of results.
--
-- One row per user and food (the API's food_item_id: a catalog food or one of the user's
-- own) with the number of diary entries made from it. The statement triggers below keep it
-- in the transaction of every write of app.food_entries, whatever writes it: the API, the
-- importers, the foreign keys' own actions (a deleted own food or catalog food sets the
-- entries' food to null; a deleted account deletes them). app.rebuild_food_usage
-- (sql/functions/app_nutrition.sql) rebuilds it from the diary.

-- A catalog food's row carries the food's name, for a search by name among the foods a user
-- logged. The foreign key keeps it the catalog's name: renaming a food in an import renames
-- it in every user's rows through ON UPDATE CASCADE, which, like every action of a foreign
-- key, is not held back by row-level security. Deleting a catalog food deletes the rows.
create unique index foods_id_name_key on app.foods (id, name);

create table app.food_usage (
  user_id  uuid not null references auth.users (id) on delete cascade,
  food_id  uuid not null,
  name     text,
  -- The name as food search compares it. A column, not an expression index on lower(name):
  -- under row-level security a condition that applies a function that is not leakproof
  -- (lower) to a column is checked after the policy, row by row, never in an index.
  name_key text generated always as (lower(name)) stored,
  entries  integer not null check (entries > 0),
  primary key (user_id, food_id),
  foreign key (food_id, name) references app.foods (id, name) on update cascade on delete cascade
);
comment on table app.food_usage is
  'Diary entries per user and food (catalog or own; name: the catalog food''s name, null for an own food), kept by triggers on app.food_entries';
-- Foods a user logged whose name starts with a search (text_pattern_ops: compared bytewise,
-- a range of the index, as the catalog's own prefix index); own foods have no name here.
create index food_usage_name_idx on app.food_usage (user_id, name_key text_pattern_ops);
-- The catalog's foreign key actions find a food's rows by it.
create index food_usage_food_idx on app.food_usage (food_id, name);

alter table app.food_usage enable row level security;
alter table app.food_usage force row level security;
create policy own_rows on app.food_usage using (user_id = (select app.current_user_id()))
  with check (user_id = (select app.current_user_id()));

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
create function app.keep_food_usage() returns trigger
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
      select o.user_id, coalesce(o.food_id, o.user_food_id) as food_id, null::text as name, -count(*)::integer as entries
        from old_entries as o
       where coalesce(o.food_id, o.user_food_id) is not null
       group by 1, 2
       order by 1, 2;
  else
    open v_changes for
      select c.user_id, c.food_id, f.name, sum(c.entries)::integer as entries
        from (select n.user_id, coalesce(n.food_id, n.user_food_id) as food_id, n.food_id as catalog_food_id, 1 as entries
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

create trigger food_entries_usage_insert after insert on app.food_entries
  referencing new table as new_entries for each statement execute function app.keep_food_usage();
create trigger food_entries_usage_update after update on app.food_entries
  referencing old table as old_entries new table as new_entries for each statement execute function app.keep_food_usage();
create trigger food_entries_usage_delete after delete on app.food_entries
  referencing old table as old_entries for each statement execute function app.keep_food_usage();

-- The diary as it stands, counted once, with the policies lifted for this transaction only
-- (the owner sees no user's rows through forced row-level security, as 0008 explains).
alter table app.food_usage no force row level security;
alter table app.food_entries no force row level security;
insert into app.food_usage (user_id, food_id, name, entries)
select e.user_id, coalesce(e.food_id, e.user_food_id), f.name, count(*)
  from app.food_entries as e
  left join app.foods as f on f.id = e.food_id
 where coalesce(e.food_id, e.user_food_id) is not null
 group by 1, 2, 3;
alter table app.food_usage force row level security;
alter table app.food_entries force row level security;

-- Food search also looks among the foods a user logged by the catalog page's typo-corrected
-- query, and among the catalog's other candidates when names starting with the query do not
-- fill the page (app.catalog_food_search remembers both). Pages remembered before have
-- neither: they are retired (the function file moves the catalog's version on).
alter table app.food_search_results
  add column corrected text,
  add column other_ids uuid[] not null default '{}';
