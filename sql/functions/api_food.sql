-- Food search, barcode lookup, food items.

-- GET /food/search?q=&limit=: catalog and the user's own foods, ranked exact name >
-- prefix > word similarity > trigram; within a tier, foods the user logged before come
-- first, then a full-text match, then similarity. Typo-tolerant through pg_trgm.
--
-- Candidates come from index scans that stop early, so a catalog of millions costs about
-- what a small one does: names starting with the query (a range of the text_pattern_ops
-- btree, compared bytewise: every name starting with q sorts between q and q followed by
-- the highest code point; a range, unlike LIKE, keeps to that index in a cached plan);
-- foods having every word of the query, misspelt words corrected against the catalog's
-- words first (app.food_name_query; full-text GIN index, at most 200 of them); and the
-- user's own foods and logged foods. Only those are ranked.
create or replace function api.food_search(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_q text := lower(btrim(coalesce(p_args ->> 'q', '')));
  v_limit integer := least(app.page_limit(p_args || jsonb_build_object('limit', coalesce(p_args ->> 'limit', '20'))), 100);
  v_prefix text := replace(replace(replace(v_q, '\', '\\'), '%', '\%'), '_', '\_') || '%';
  v_words tsquery := plainto_tsquery('english', v_q);
  v_terms tsquery;
  v_corrected text;
  v_candidates uuid[];
  v_logged uuid[];
begin
  if length(v_q) < 2 then
    perform app.raise_error(422, 'query_too_short', 'Search for at least 2 characters.',
                            jsonb_build_object('q', 'must be at least 2 characters'));
  end if;
  v_candidates := array(select f.id from app.foods as f
                         where lower(f.name) ~>=~ v_q and lower(f.name) ~<~ (v_q || chr(1114111))
                         order by lower(f.name) using ~<~ limit 40);
  -- Names starting with the query rank above every other match: when they alone fill the
  -- page, no full-text candidate could enter it. On a large catalog the full-text match of
  -- common words is the costliest step of a search, so it is skipped then.
  if cardinality(v_candidates) < v_limit then
    select q.terms, q.corrected into v_terms, v_corrected from app.food_name_query(v_q) as q;
    -- A misspelt query: names starting with what the user meant are the next best.
    if v_corrected is not null then
      v_candidates := v_candidates || array(
        select f.id from app.foods as f
         where lower(f.name) ~>=~ v_corrected and lower(f.name) ~<~ (v_corrected || chr(1114111))
         order by lower(f.name) using ~<~ limit 40);
    end if;
  end if;
  if cardinality(v_candidates) < v_limit then
    v_candidates := v_candidates || array(select f.id from app.foods as f where f.search_vector @@ v_terms limit 200);
  end if;
  v_logged := array(select distinct coalesce(e.food_id, e.user_food_id) from app.food_entries as e
                     where e.user_id = v_user_id and (e.food_id is not null or e.user_food_id is not null));
  return jsonb_build_object('items', coalesce((
    select jsonb_agg(app.food_values_json(r.id, r.is_user_food, r.name, r.brand, r.food_group, r.barcode, r.source,
                                          r.energy_kcal, r.protein_g, r.fat_g, r.carbs_g, r.fiber_g, r.sugars_g,
                                          r.sodium_mg, r.saturated_fat_g, r.serving_label, r.serving_g,
                                          coalesce((select jsonb_agg(jsonb_build_object('id', p.seq, 'label', p.label,
                                                                                        'grams', p.gram_weight) order by p.seq)
                                                      from app.food_portions as p where p.food_id = r.id), '[]'))
                     order by r.tier desc, r.logged desc, r.score desc, r.name)
      from (
        select c.*,
               case when c.lname = v_q then 4
                    when c.lname like v_prefix then 3
                    when c.word_score >= 0.6 then 2
                    else 1 end as tier,
               c.id = any (v_logged) as logged,
               c.word_score + similarity(c.lname, v_q) + case when c.search_vector @@ v_words then 0.5 else 0 end as score
          from (
            select x.*, lower(x.name) as lname, word_similarity(v_q, lower(x.name)) as word_score
              from (
                (select f.id, false as is_user_food, f.name, f.brand, f.food_group, f.barcode, f.source, f.energy_kcal,
                        f.protein_g, f.fat_g, f.carbs_g, f.fiber_g, f.sugars_g, f.sodium_mg, f.saturated_fat_g,
                        f.serving_label, f.serving_g, f.search_vector
                   from app.foods as f where f.id = any (v_candidates || v_logged))
                union all
                (select u.id, true, u.name, u.brand, null, u.barcode, 'user', u.energy_kcal, u.protein_g, u.fat_g,
                        u.carbs_g, u.fiber_g, u.sugars_g, u.sodium_mg, u.saturated_fat_g, u.serving_label, u.serving_g,
                        to_tsvector('english', u.name || ' ' || coalesce(u.brand, ''))
                   from app.user_foods as u
                  where u.user_id = v_user_id
                    and (lower(u.name) % v_q or v_q <% lower(u.name) or lower(u.name) like '%' || v_prefix))
              ) as x
          ) as c
         where c.lname like '%' || v_prefix or c.word_score >= 0.6 or c.lname % v_q or c.search_vector @@ v_words
            or c.search_vector @@ v_terms
         order by tier desc, logged desc, score desc, c.name
         limit v_limit
      ) as r), '[]'), 'next_cursor', null);
end
$$;

create or replace function api.food_barcode(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_id uuid;
begin
  -- The user's own food first: it is what they scanned and saved.
  select u.id into v_id from app.user_foods as u where u.user_id = v_user_id and u.barcode = p_args ->> 'code' limit 1;
  if v_id is null then
    select f.id into v_id from app.foods as f where f.barcode = p_args ->> 'code' order by f.updated_at desc limit 1;
  end if;
  if v_id is null then
    perform app.raise_error(404, 'food_not_found', 'No food with this barcode.');
  end if;
  return app.food_json(v_user_id, v_id);
end
$$;

create or replace function api.food_get(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_food jsonb;
begin
  if app.is_uuid(p_args ->> 'id') then
    v_food := app.food_json(v_user_id, (p_args ->> 'id')::uuid);
  end if;
  if v_food is null then
    perform app.raise_error(404, 'food_not_found', 'No such food.');
  end if;
  return v_food;
end
$$;

-- POST /food/items: a food of the user's own (private), nutrients per 100 g.
create or replace function api.food_create(p_token text, p_body jsonb, p_args jsonb)
returns jsonb
language plpgsql
as $$
declare
  v_user_id uuid := auth.authenticate(p_token);
  v_body jsonb := coalesce(p_body, '{}');
  v_id uuid;
begin
  perform app.raise_if_invalid(jsonb_build_object(
    'name', app.field_problem(v_body, 'name', 'app.food_name'),
    'barcode', app.field_problem(v_body, 'barcode', 'app.barcode', false),
    'calories', app.field_problem(v_body, 'calories', 'app.kcal'),
    'protein_g', app.field_problem(v_body, 'protein_g', 'app.grams', false),
    'carbs_g', app.field_problem(v_body, 'carbs_g', 'app.grams', false),
    'fat_g', app.field_problem(v_body, 'fat_g', 'app.grams', false),
    'fiber_g', app.field_problem(v_body, 'fiber_g', 'app.grams', false),
    'sugars_g', app.field_problem(v_body, 'sugars_g', 'app.grams', false),
    'saturated_fat_g', app.field_problem(v_body, 'saturated_fat_g', 'app.grams', false),
    'sodium_mg', app.field_problem(v_body, 'sodium_mg', 'app.kcal', false),
    'serving_g', app.field_problem(v_body, 'serving_g', 'app.grams', false)));
  insert into app.user_foods (user_id, name, brand, barcode, energy_kcal, protein_g, carbs_g, fat_g, fiber_g, sugars_g,
                              sodium_mg, saturated_fat_g, serving_label, serving_g)
  values (v_user_id, btrim(v_body ->> 'name'), v_body ->> 'brand', v_body ->> 'barcode', (v_body ->> 'calories')::numeric,
          coalesce((v_body ->> 'protein_g')::numeric, 0), coalesce((v_body ->> 'carbs_g')::numeric, 0),
          coalesce((v_body ->> 'fat_g')::numeric, 0), (v_body ->> 'fiber_g')::numeric, (v_body ->> 'sugars_g')::numeric,
          (v_body ->> 'sodium_mg')::numeric, (v_body ->> 'saturated_fat_g')::numeric,
          coalesce(v_body ->> 'serving_label', coalesce((v_body ->> 'serving_g')::numeric, 100)::text || ' g'),
          coalesce((v_body ->> 'serving_g')::numeric, 100))
  returning id into v_id;
  return app.food_json(v_user_id, v_id);
end
$$;
