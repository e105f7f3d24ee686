-- Importers' finishing steps: staging tables (filled by COPY) → the food catalog.
-- Idempotent: foods are keyed by (source, source_id); re-running updates, never duplicates.

-- USDA SR28: FOOD_DES + FD_GROUP + NUT_DATA (nutrients 208 energy kcal, 203 protein,
-- 204 fat, 205 carbohydrate, 291 fiber, 269 sugars, 307 sodium mg, 606 saturated fat)
-- + WEIGHT (household portions; the first is the default serving).
create or replace function app.finish_usda_import()
returns jsonb
language plpgsql
as $$
declare
  v_foods integer;
  v_portions integer;
begin
  insert into app.foods as f (id, source, source_id, name, food_group, energy_kcal, protein_g, fat_g, carbs_g,
                              fiber_g, sugars_g, sodium_mg, saturated_fat_g, serving_label, serving_g)
  select md5('usda-sr28:' || d.ndb_no)::uuid, 'usda-sr28', d.ndb_no, d.long_desc, g.fdgrp_desc,
         coalesce(n.energy, 0), coalesce(n.protein, 0), coalesce(n.fat, 0), coalesce(n.carbs, 0),
         n.fiber, n.sugars, n.sodium, n.saturated_fat,
         coalesce(w.amount::numeric::text || ' ' || w.msre_desc, '100 g'), coalesce(w.gm_wgt::numeric, 100)
    from staging.usda_food_des as d
    left join staging.usda_fd_group as g on g.fdgrp_cd = d.fdgrp_cd
    left join (
      select x.ndb_no,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '208') as energy,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '203') as protein,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '204') as fat,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '205') as carbs,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '291') as fiber,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '269') as sugars,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '307') as sodium,
             max(x.nutr_val::numeric) filter (where x.nutr_no = '606') as saturated_fat
        from staging.usda_nut_data as x
       where x.nutr_no in ('208', '203', '204', '205', '291', '269', '307', '606')
       group by x.ndb_no
    ) as n on n.ndb_no = d.ndb_no
    left join (
      select distinct on (y.ndb_no) y.ndb_no, y.amount, y.msre_desc, y.gm_wgt
        from staging.usda_weight as y
       where y.gm_wgt::numeric > 0
       order by y.ndb_no, y.seq::integer
    ) as w on w.ndb_no = d.ndb_no
   where coalesce(d.long_desc, '') <> ''
  on conflict (source, source_id) do update
    set name = excluded.name, food_group = excluded.food_group, energy_kcal = excluded.energy_kcal,
        protein_g = excluded.protein_g, fat_g = excluded.fat_g, carbs_g = excluded.carbs_g,
        fiber_g = excluded.fiber_g, sugars_g = excluded.sugars_g, sodium_mg = excluded.sodium_mg,
        saturated_fat_g = excluded.saturated_fat_g, serving_label = excluded.serving_label,
        serving_g = excluded.serving_g, updated_at = now();
  get diagnostics v_foods = row_count;

  delete from app.food_portions as p
   using staging.usda_food_des as d
   where p.food_id = md5('usda-sr28:' || d.ndb_no)::uuid;
  insert into app.food_portions (food_id, seq, label, gram_weight)
  select md5('usda-sr28:' || y.ndb_no)::uuid, y.seq::integer, y.amount::numeric::text || ' ' || y.msre_desc,
         y.gm_wgt::numeric
    from staging.usda_weight as y
   where y.gm_wgt::numeric > 0
     and exists (select from app.foods as f where f.id = md5('usda-sr28:' || y.ndb_no)::uuid);
  get diagnostics v_portions = row_count;

  return jsonb_build_object('foods', v_foods, 'portions', v_portions);
end
$$;
