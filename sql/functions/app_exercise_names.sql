-- One identity per exercise: how a name that people or other apps write ("Bench Press
-- (Barbell)", "Pull Up", "Flat Barbell Bench Press") finds the catalog's exercise, and what
-- a name that finds none is (docs/imports.md, "How names resolve").

-- The words of an exercise name, to tell two spellings of one name from two names: lower
-- case, `&` as "and", apostrophes dropped, every other character that is no letter or
-- digit a space; a plural as its singular (presses → press, crunches → crunch, ups → up
-- (Push Ups), and a word
-- of more than three letters that ends in one s without it: raises → raise, biceps →
-- bicep; press stays); the little words (a, an, and, of, on, the, with) left
-- out; each word once, sorted. "Pull-Up" and "Pull Up" are {pull, up}; "Bench Press
-- (Barbell)" and "Barbell Bench Press" are {barbell, bench, press}.
create or replace function app.exercise_name_words(p_name text)
returns text[]
language sql
immutable
parallel safe
as $$
  select coalesce(array_agg(distinct w.word order by w.word), '{}')
    from (select case when x.word = 'ups' then 'up' when x.word ~ '(ss|ch|sh|x)es$' then left(x.word, -2)
                      when length(x.word) > 3 and x.word ~ '[^s]s$' then left(x.word, -1) else x.word end as word
            from regexp_split_to_table(btrim(regexp_replace(replace(replace(lower(p_name), '&', ' and '), '''', ''),
                                                            '[^a-z0-9]+', ' ', 'g')), ' ') as x (word)
           where x.word not in ('', 'a', 'an', 'and', 'of', 'on', 'the', 'with')) as w
$$;

-- A name without its bracketed qualifiers: "Bench Press (Barbell)" → "Bench Press".
create or replace function app.exercise_name_base(p_name text)
returns text
language sql
immutable
parallel safe
as $$ select btrim(regexp_replace(regexp_replace(p_name, '\([^()]*\)', ' ', 'g'), '\s+', ' ', 'g')) $$;

-- The catalog's equipment for the equipment a name's bracketed qualifier gives, as Strong
-- and Hevy write it: (Barbell), (Dumbbell), (Cable), (Machine), (Smith Machine) and
-- (Plate Loaded) are machines, (Band), (Bodyweight), (Kettlebell), (EZ Bar); null for a
-- name without one ("(Assisted)", "(Weighted)" name no equipment).
create or replace function app.exercise_name_equipment(p_name text)
returns text
language sql
immutable
parallel safe
as $$
  select case
    when q ~ 'smith|machine|plate loaded' then 'machine'
    when q ~ '\mez[ -]?(curl )?bar\M|e-z' then 'e_z_curl_bar'
    when q ~ 'barbell|trap bar|hex bar' then 'barbell'
    when q ~ 'dumbbell' then 'dumbbell'
    when q ~ 'cable' then 'cable'
    when q ~ 'band' then 'bands'
    when q ~ 'kettlebell' then 'kettlebells'
    when q ~ 'bodyweight|body weight' then 'body_only'
  end
    from (select lower(string_agg(m[1], ' ')) as q from regexp_matches(p_name, '\(([^()]*)\)', 'g') as m) as x
$$;

-- What a name that matches no exercise says about itself, for the own exercise it becomes
-- (an import's new name): its category (cardio or stretching when a word says so, else
-- strength), its equipment (its bracketed qualifier, else a word of it, else other) and the
-- muscles it works, by the first of these word rules that matches (the specific before the
-- general: a leg curl works the hamstrings, any other curl the biceps). A name no rule
-- knows has no muscles.
create or replace function app.exercise_traits_from_name(p_name text, out category text, out equipment text,
  out primary_muscles text[])
language sql
immutable
as $$
  select case when n ~ '\m(run|running|jog|jogging|sprint|treadmill|cycling|bike|biking|spin|elliptical|swim|swimming|walk|walking|hike|hiking|rowing|erg|stair|stairs|stairmaster|skiing|skating|jump rope|skipping|cardio|aerobics)\M'
              then 'cardio'
              when n ~ '\m(stretch|stretching|yoga|mobility|foam roll)' then 'stretching'
              else 'strength' end,
         coalesce(app.exercise_name_equipment(p_name),
                  case when n ~ 'smith|machine' then 'machine' when n ~ '\mez[ -]?bar|e-z' then 'e_z_curl_bar'
                       when n ~ 'barbell' then 'barbell' when n ~ 'dumbbell' then 'dumbbell'
                       when n ~ 'cable' then 'cable' when n ~ 'kettlebell' then 'kettlebells'
                       when n ~ '\mbands?\M' then 'bands' else 'other' end),
         coalesce((select r.muscles from (values
           (1, '\m(leg curl|hamstring|nordic|glute[ -]ham)', array['hamstrings']),
           (2, '\m(wrist|forearm|farmer|gripper|grip strength|hand grip)', array['forearms']),
           (3, '\m(calf|calves)\M', array['calves']),
           (4, '\mshrug', array['traps']),
           (5, '\mneck\M', array['neck']),
           (6, '\mabduct', array['abductors']),
           (7, '\madduct', array['adductors']),
           (8, '\m(tricep|triceps|pushdown|push down|skull ?crusher|close[ -]grip bench)', array['triceps']),
           (9, '\m(hip thrust|glute|bridge|kickback|donkey kick|fire hydrant)', array['glutes']),
           (10, '\m(leg extension|squat|leg press|lunge|step[ -]?up|sissy|wall sit|hack)', array['quadriceps']),
           (11, '\m(deadlift|good morning|back extension|hyperextension|superman|rdl)',
                array['hamstrings', 'lower back']),
           (12, '\mcurl', array['biceps']),
           (13, '\m(pallof|crunch|plank|sit[ -]?up|abs?\M|ab wheel|leg raise|knee raise|twist|hollow|v[ -]up|toes to bar|wood ?chop|side bend|core|oblique|rollout|mountain climber|dead bug|bird dog|l[ -]sit)', array['abdominals']),
           (14, '\m(bench|chest|fly|flye|flyes|pec|push[ -]?up|dip|dips)\M', array['chest']),
           (15, '\m(shoulder|overhead press|military|lateral raise|front raise|arnold|rear delt|delt|face pull|upright row|ohp)', array['shoulders']),
           (16, '\m(pulldown|pull down|pull[ -]?up|chin[ -]?up|lat)\M', array['lats']),
           (17, '\m(row|rows|rowing)\M', array['middle back', 'lats']),
           (18, '\m(press|raise)\M', array['shoulders']),
           (19, '\m(run|running|jog|sprint|walk|walking|hike|hiking|stair|stairs|cycling|bike|biking|spin|elliptical|skiing|skating|jump rope|skipping|burpee|jumping jack|box jump)', array['quadriceps']),
           (20, '\m(swim|swimming|climb|climbing)', array['lats'])) as r (k, pattern, muscles)
            where n ~ r.pattern order by r.k limit 1), '{}')
    from (select lower(p_name) as n) as x
$$;

-- Each name resolved to an exercise, and how (exact, alias, rule, similar, new), once per
-- name (case-insensitive), by the first step that finds one:
--   alias    a name the user merged into another exercise (app.exercise_name_aliases,
--            POST /exercises/{id}/merge): that exercise, whatever else the name is;
--   alias    a catalog exercise that has the name among its aliases (other apps' names for
--            it, sql/data/exercise-aliases.tsv): what the app means by it, even where the
--            catalog holds another entry of that name (Hevy's "Air Bike" is a fan bike);
--   exact    the catalog's exercise of that name, then the user's own (as every request
--            resolves a name, app.resolve_exercise);
-- and, for a name no app's list says the catalog lacks (app.exercise_unmatched_names):
--   rule     a catalog exercise of the same words in any order (app.exercise_name_words:
--            "Pull Up" is "Pull-Up", "Squat (Barbell)" is "Barbell Squat"), or of the words
--            of the name without its bracketed qualifier and of the equipment the qualifier
--            gives ("Lat Pulldown (Cable)" is the cable "Lat Pulldown");
--   similar  the catalog exercise whose words are most alike (trigram similarity of the
--            words, at least 0.8), of the qualifier's equipment when the name gives one;
--   new      none: the name becomes an own exercise (app.exercise_traits_from_name).
-- Among several candidates of a step, the built-in (curated) entry, then the shortest name.
-- The user's rows (own exercises, merged names) are read first, each by the user, so that
-- the statement that resolves reads only the catalog: Citus runs it on the coordinator,
-- where a join of a user's rows with others would need them co-located.
create or replace function app.resolve_exercise_names(p_user_id uuid, p_names text[])
returns table (name text, exercise_id uuid, user_exercise_id uuid, exercise_name text, how text)
language plpgsql
stable
as $$
declare
  v_keys text[] := array(select distinct lower(btrim(n.name)) from unnest(p_names) as n (name));
  v_own jsonb;
  v_merged jsonb;
begin
  select coalesce(jsonb_object_agg(lower(u.name), jsonb_build_object('id', u.id, 'name', u.name)), '{}')
    into v_own
    from app.user_exercises as u where u.user_id = p_user_id and lower(u.name) = any (v_keys);
  select coalesce(jsonb_object_agg(a.alias, jsonb_build_object('exercise_id', a.exercise_id,
                                                               'user_exercise_id', a.user_exercise_id,
                                                               'name', coalesce(e.name::text, u.name::text))), '{}')
    into v_merged
    from app.exercise_name_aliases as a
    left join app.exercises as e on e.id = a.exercise_id
    left join app.user_exercises as u on u.user_id = a.user_id and u.id = a.user_exercise_id
   where a.user_id = p_user_id and a.alias = any (v_keys);
  return query
  with names as (
    select distinct on (lower(btrim(n.name))) btrim(n.name) as name, lower(btrim(n.name)) as key,
           app.exercise_name_words(n.name) as words,
           app.exercise_name_words(app.exercise_name_base(n.name)) as base_words,
           app.exercise_name_equipment(n.name) as equipment,
           exists (select from app.exercise_unmatched_names as u where u.name = lower(btrim(n.name))) as unmatched
      from unnest(p_names) as n (name)
     where btrim(n.name) <> ''
     order by lower(btrim(n.name)), n.name),
  catalog as materialized (
    select e.id, e.name::text as name, e.equipment, e.source = 'builtin' as curated, e.aliases,
           app.exercise_name_words(e.name) as words, array_to_string(app.exercise_name_words(e.name), ' ') as word_text
      from app.exercises as e)
  select k.name, r.exercise_id, r.user_exercise_id, r.exercise_name, coalesce(r.how, 'new')
    from names as k
    left join lateral (
      select s.exercise_id, s.user_exercise_id, s.exercise_name, s.how
        from ((select app.read_uuid(v_merged -> k.key, 'exercise_id') as exercise_id,
                      app.read_uuid(v_merged -> k.key, 'user_exercise_id') as user_exercise_id,
                      v_merged -> k.key ->> 'name' as exercise_name, 'alias' as how, 0 as step
                where v_merged ? k.key)
              union all
              (select c.id, null, c.name, 'alias', 1
                 from catalog as c where c.aliases @> array[k.key]
                order by c.curated desc, length(c.name), c.name limit 1)
              union all
              (select c.id, null::uuid, c.name, 'exact', 2
                 from catalog as c where lower(c.name) = k.key limit 1)
              union all
              (select null, app.read_uuid(v_own -> k.key, 'id'), v_own -> k.key ->> 'name', 'exact', 3
                where v_own ? k.key)
              union all
              (select c.id, null, c.name, 'rule', 4
                 from catalog as c where not k.unmatched and c.words = k.words
                order by c.curated desc, length(c.name), c.name limit 1)
              union all
              (select c.id, null, c.name, 'rule', 5
                 from catalog as c
                where not k.unmatched and k.equipment is not null and c.words = k.base_words
                  and c.equipment = k.equipment
                order by c.curated desc, length(c.name), c.name limit 1)
              union all
              (select c.id, null, c.name, 'similar', 6
                 from catalog as c
                where not k.unmatched and (k.equipment is null or c.equipment = k.equipment)
                  and similarity(c.word_text, array_to_string(k.words, ' ')) >= 0.8
                order by similarity(c.word_text, array_to_string(k.words, ' ')) desc,
                         c.curated desc, length(c.name), c.name
                limit 1)) as s
       order by s.step
       limit 1) as r on true;
end
$$;

-- The aliases of the built-in catalog (sql/data/exercise-aliases.tsv: alias, exercise,
-- sources), as `liftbase migrate` loads them with the built-in catalogs: each exercise's
-- aliases become the lower-case aliases the file gives it, every other exercise's none.
-- An alias naming an exercise the catalog lacks (a catalog loaded without the shipped
-- exercises) is left out and counted. A name whose exercise is `-` is one the catalog has
-- no exercise for (app.exercise_unmatched_names): the rule and similarity steps of
-- app.resolve_exercise_names leave it alone. An alias of the list of common names (sources
-- "common") that is the name of another catalog entry is a near-duplicate of the exercise
-- it names: the two are one family (app.exercises.family). Another app's name that happens
-- to be a catalog name makes no family: only the curated list says two entries are one lift.
-- Returns {"aliases": n, "exercises": n, "unknown": n, "unmatched": n}.
create or replace function app.load_exercise_aliases(p_rows jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_exercises integer;
  v_aliases integer;
  v_unknown integer;
begin
  delete from app.exercise_unmatched_names as u
   where not exists (select from jsonb_array_elements(p_rows) as r
                      where btrim(r ->> 'exercise') = '-' and lower(btrim(r ->> 'alias')) = u.name);
  insert into app.exercise_unmatched_names (name)
  select distinct lower(btrim(r ->> 'alias')) from jsonb_array_elements(p_rows) as r where btrim(r ->> 'exercise') = '-'
  on conflict (name) do nothing;
  with given as (
    select distinct lower(btrim(r ->> 'alias')) as alias, lower(btrim(r ->> 'exercise')) as exercise
      from jsonb_array_elements(p_rows) as r where btrim(r ->> 'exercise') <> '-'),
  per_exercise as (
    select e.id, array_agg(g.alias order by g.alias) as aliases
      from given as g join app.exercises as e on lower(e.name) = g.exercise
     group by e.id)
  update app.exercises as e
     set aliases = coalesce(p.aliases, '{}')
    from app.exercises as x
    left join per_exercise as p on p.id = x.id
   where x.id = e.id and e.aliases is distinct from coalesce(p.aliases, '{}');
  with near_duplicates as (
    select c.id as head, d.id as member
      from jsonb_array_elements(p_rows) as r
      join app.exercises as c on lower(c.name) = lower(btrim(r ->> 'exercise'))
      join app.exercises as d on lower(d.name) = lower(btrim(r ->> 'alias'))
     where 'common' = any (string_to_array(r ->> 'sources', ',')) and d.id <> c.id),
  members as (
    select n.head, n.member from near_duplicates as n
    union
    select n.head, n.head from near_duplicates as n),
  families as (
    select m.member, array_agg(f.member order by f.member) as family
      from members as m join members as f on f.head = m.head
     group by m.member)
  update app.exercises as e
     set family = coalesce(f.family, '{}')
    from app.exercises as x
    left join families as f on f.member = x.id
   where x.id = e.id and e.family is distinct from coalesce(f.family, '{}');
  select count(*) filter (where cardinality(e.aliases) > 0), coalesce(sum(cardinality(e.aliases)), 0)
    into v_exercises, v_aliases from app.exercises as e;
  select count(*) into v_unknown
    from (select distinct lower(btrim(r ->> 'exercise')) as exercise from jsonb_array_elements(p_rows) as r
           where btrim(r ->> 'exercise') <> '-') as g
   where not exists (select from app.exercises as e where lower(e.name) = g.exercise);
  return jsonb_build_object('aliases', v_aliases, 'exercises', v_exercises, 'unknown', v_unknown,
                            'unmatched', (select count(*) from app.exercise_unmatched_names));
end
$$;

-- The ids whose history is the history of exercise p_id: its catalog family
-- (app.exercises.family), or p_id alone (an own exercise, or one without near-duplicates).
-- PL/pgSQL, as the other reads of this file: Citus plans a SQL function's parameterized
-- statement badly, where PL/pgSQL keeps a plan.
create or replace function app.exercise_family(p_id uuid)
returns uuid[]
language plpgsql
stable
as $$
begin
  return coalesce((select nullif(e.family, '{}') from app.exercises as e where e.id = p_id), array[p_id]);
end
$$;

grant execute on function
  app.exercise_family(uuid),
  app.exercise_name_words(text),
  app.exercise_name_base(text),
  app.exercise_name_equipment(text),
  app.exercise_traits_from_name(text),
  app.resolve_exercise_names(uuid, text[])
to liftbase_api;
