-- Exercise substitutions: what to do instead of an exercise, for the user's equipment and
-- around their exclusions (injuries).

-- Share of two muscle lists in common (|A ∩ B| / |A ∪ B|); two empty lists agree fully.
create or replace function app.muscle_overlap(p_a text[], p_b text[])
returns numeric
language sql
immutable
parallel safe
as $$
  select case when cardinality(p_a) = 0 and cardinality(p_b) = 0 then 1.0
              else (select count(*) from (select unnest(p_a) intersect select unnest(p_b)) as i)::numeric
                   / (select count(*) from (select unnest(p_a) union select unnest(p_b)) as u) end
$$;

-- How well a candidate replaces an exercise, 0–1: the same movement pattern, the same
-- primary and secondary muscles, the same equipment, weighted by goal. Strength is
-- specific to the movement and the implement, so pattern and equipment weigh more;
-- hypertrophy is specific to the muscles worked.
create or replace function app.specificity_score(p_goal text, p_same_pattern boolean, p_primary_overlap numeric,
                                                 p_secondary_overlap numeric, p_same_equipment boolean)
returns numeric
language sql
immutable
parallel safe
as $$
  select round(case p_goal
                 when 'strength' then 0.5 * p_same_pattern::integer + 0.25 * p_primary_overlap
                                      + 0.1 * p_secondary_overlap + 0.15 * p_same_equipment::integer
                 else 0.35 * p_same_pattern::integer + 0.45 * p_primary_overlap
                      + 0.15 * p_secondary_overlap + 0.05 * p_same_equipment::integer end, 2)
$$;

grant execute on function
  app.muscle_overlap(text[], text[]),
  app.specificity_score(text, boolean, numeric, numeric, boolean)
to liftbase_api;
