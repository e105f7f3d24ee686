-- The full-text query of a food search, tolerant of typos: every word of the query must
-- match (AND); a word that is a catalog word matches as it is, a misspelt one matches the
-- catalog words most like it (trigram similarity ≥ 0.5, at most three), and the last word
-- also matches as a prefix (people search as they type). Words that match no catalog word
-- at all are left out rather than failing the whole query: null terms when nothing is left.
-- `corrected` is the query with every misspelt word replaced by its closest catalog word
-- (null when no word needed it), for a cheap prefix search on what the user meant.
--
-- A loop of small index lookups per word (a query has a few words) rather than one
-- set-based statement: planned once per connection, each lookup stays an index probe.
create or replace function app.food_name_query(p_query text, out terms tsquery, out corrected text)
language plpgsql
stable
-- The words table is small, and the planner prices a trigram match (%) so low that it
-- scans all of it (about 4 ms on SR28's words) instead of using the trigram index (0.3 ms).
set enable_seqscan = off
as $$
declare
  -- In FROM, so that the set-returning SQL function is inlined (in the select list it is not).
  v_words text[] := array(select w from app.name_words(p_query) as w);
  v_count integer := coalesce(array_length(v_words, 1), 0);
  v_terms text[] := '{}';
  v_meant text[] := '{}';
  v_spellings text[];
  v_prefix text;
  v_term text;
  i integer;
begin
  for i in 1 .. v_count loop
    if exists (select from app.food_name_words as d where d.word = v_words[i]) then
      v_spellings := array[v_words[i]];
    else
      v_spellings := array(select d.word from app.food_name_words as d
                            where d.word % v_words[i] and similarity(d.word, v_words[i]) >= 0.5
                            order by similarity(d.word, v_words[i]) desc, d.word limit 3);
    end if;
    v_meant := v_meant || v_spellings[1];
    -- The last word as a prefix, when some catalog word starts with it. Under collation C
    -- every word starting with it sorts between it and it followed by the highest code point.
    v_prefix := null;
    if i = v_count and exists (select from app.food_name_words as d
                                where d.word >= v_words[i] and d.word < v_words[i] || chr(1114111)) then
      v_prefix := v_words[i];
    end if;
    -- Foods' search_vector is English-stemmed: stem each spelling the same way. Stop words
    -- have no lexeme and drop out here.
    select string_agg(distinct x.lexeme, ' | ') into v_term
      from (select quote_literal(l.lexeme) as lexeme
              from unnest(v_spellings) as s (word) cross join lateral unnest(to_tsvector('english', s.word)) as l
            union all
            select quote_literal(l.lexeme) || ':*'
              from unnest(to_tsvector('english', v_prefix)) as l) as x;
    if v_term is not null then
      v_terms := v_terms || ('(' || v_term || ')');
    end if;
  end loop;
  terms := nullif(array_to_string(v_terms, ' & '), '')::tsquery;
  corrected := nullif(array_to_string(v_meant, ' '), array_to_string(v_words, ' '));
end
$$;

grant execute on function app.food_name_query(text, out tsquery, out text) to liftbase_api;

-- How a food's name matches a search (the one ranking rule, for catalog and own foods):
-- whether it matches at all, its tier (exact name 4 > name starting with the query 3 > word
-- similarity ≥ 0.6, pg_trgm's default, 2 > any other match 1) and its score within the tier
-- (word similarity + similarity + 0.5 when it has every word). p_words is the query as plain
-- full-text words, p_terms the typo-corrected one (app.food_name_query). Each trigram
-- measure is computed once per name: they are most of a search's cost.
-- A set-returning SQL function so that it is inlined into the query calling it.
create or replace function app.food_match(p_query text, p_name text, p_vector tsvector, p_words tsquery,
                                          p_terms tsquery)
returns table (matches boolean, tier integer, score double precision)
language sql
immutable
as $$
  select n.name like '%' || n.pattern or n.word_score >= 0.6 or n.name_score >= 0.3
           or coalesce(p_vector @@ p_words, false) or coalesce(p_vector @@ p_terms, false),
         case when n.name = p_query then 4
              when n.name like n.pattern then 3
              when n.word_score >= 0.6 then 2
              else 1 end,
         n.word_score + n.name_score + case when p_vector @@ p_words then 0.5 else 0 end
    from (select lower(p_name) as name,
                 word_similarity(p_query, lower(p_name)) as word_score,
                 similarity(lower(p_name), p_query) as name_score,
                 -- The query as a LIKE prefix, its wildcard characters taken literally.
                 replace(replace(replace(p_query, '\', '\\'), '%', '\%'), '_', '\_') || '%' as pattern
          offset 0) as n
$$;

-- The catalog's page of a search (at most p_page_size foods, best first), remembered in
-- app.food_search_results for an hour or until the catalog changes (0018).
--
-- Candidates come from index scans that stop early, so a catalog of millions costs about
-- what a small one does: names starting with the query (a range of the text_pattern_ops
-- btree, compared bytewise: every name starting with q sorts between q and q followed by
-- the highest code point; a range, unlike LIKE, keeps to that index in a cached plan);
-- names starting with the corrected query when a word was misspelt; foods having every
-- word of the query, misspelt words corrected against the catalog's words first
-- (app.food_name_query; full-text GIN index, at most 200 of them). Only those are ranked.
create or replace function app.catalog_food_search(p_query text, p_page_size integer)
returns app.food_search_results
language plpgsql
as $$
declare
  v_page app.food_search_results;
  v_version bigint;
  v_corrected text;
  v_candidates uuid[];
  -- Pages made before this are neither served nor kept.
  v_expired timestamptz := now() - interval '1 hour';
begin
  -- The version first: catalog rows read after it are at least as new as it says.
  select c.version into v_version from app.food_catalog_version as c;
  select r.* into v_page from app.food_search_results as r
   where r.query = p_query and r.page_size = p_page_size and r.catalog_version = v_version
     and r.created_at > v_expired;
  if found then
    return v_page;
  end if;

  v_candidates := array(select f.id from app.foods as f
                         where lower(f.name) ~>=~ p_query and lower(f.name) ~<~ (p_query || chr(1114111))
                         order by lower(f.name) using ~<~ limit 40);
  -- Names starting with the query rank above every other match: when they alone fill the
  -- page, no full-text candidate could enter it. On a large catalog the full-text match of
  -- common words is the costliest step of a search, so it is skipped then.
  if cardinality(v_candidates) < p_page_size then
    select q.terms, q.corrected into v_page.terms, v_corrected from app.food_name_query(p_query) as q;
    -- A misspelt query: names starting with what the user meant are the next best.
    if v_corrected is not null then
      v_candidates := v_candidates || array(
        select f.id from app.foods as f
         where lower(f.name) ~>=~ v_corrected and lower(f.name) ~<~ (v_corrected || chr(1114111))
         order by lower(f.name) using ~<~ limit 40);
    end if;
    if cardinality(v_candidates) < p_page_size then
      v_candidates := v_candidates || array(select f.id from app.foods as f
                                             where f.search_vector @@ v_page.terms limit 200);
    end if;
  end if;

  -- Every candidate that matches, ranked; the page is the first p_page_size of them.
  select coalesce(array_agg(r.id order by r.n), '{}'), coalesce(array_agg(r.tier order by r.n), '{}'),
         coalesce(array_agg(r.score order by r.n), '{}'), coalesce(array_agg(r.name order by r.n), '{}')
    into v_page.food_ids, v_page.tiers, v_page.scores, v_page.names
    from (select f.id, f.name, m.tier, m.score, row_number() over (order by m.tier desc, m.score desc, f.name) as n
            from app.foods as f
           cross join lateral app.food_match(p_query, f.name, f.search_vector, plainto_tsquery('english', p_query),
                                             v_page.terms) as m
           where f.id = any (v_candidates) and m.matches) as r;
  -- The candidates below the page that could still rank into it for a user who logged them
  -- (api.food_search, app.logged_foods): those of the page's last tier or better, when that
  -- tier is below the names starting with the query (those a user logged are found by name).
  if cardinality(v_page.food_ids) > p_page_size and v_page.tiers[p_page_size] < 3 then
    v_page.other_ids := array(select o.id from unnest(v_page.food_ids, v_page.tiers) with ordinality as o (id, tier, n)
                               where o.n > p_page_size and o.tier >= v_page.tiers[p_page_size] order by o.n);
  else
    v_page.other_ids := '{}';
  end if;
  v_page.food_ids := v_page.food_ids[1:p_page_size];
  v_page.tiers := v_page.tiers[1:p_page_size];
  v_page.scores := v_page.scores[1:p_page_size];
  v_page.names := v_page.names[1:p_page_size];
  v_page.items := array(select app.food_values_json(f.id, false, f.name, f.brand, f.food_group, f.barcode, f.source,
                                                    f.energy_kcal, f.protein_g, f.fat_g, f.carbs_g, f.fiber_g,
                                                    f.sugars_g, f.sodium_mg, f.saturated_fat_g, f.serving_label,
                                                    f.serving_g, app.food_portions_json(f.id))::json
                          from unnest(v_page.food_ids) with ordinality as p (id, n)
                          join app.foods as f on f.id = p.id
                         order by p.n);
  v_page.corrected := v_corrected;

  v_page.query := p_query;
  v_page.page_size := p_page_size;
  v_page.catalog_version := v_version;
  v_page.created_at := now();
  -- A query too long to be a key of the primary key's btree (about 2.7 kB) is ranked
  -- afresh each time; no food name is anywhere near 200 characters of search anyway.
  if length(p_query) > 200 then
    return v_page;
  end if;
  insert into app.food_search_results select v_page.*
  on conflict (query, page_size) do update
    set catalog_version = excluded.catalog_version, created_at = excluded.created_at, terms = excluded.terms,
        food_ids = excluded.food_ids, tiers = excluded.tiers, scores = excluded.scores, names = excluded.names,
        items = excluded.items, corrected = excluded.corrected, other_ids = excluded.other_ids;
  -- Each new page removes up to ten expired ones: the table stays about an hour long
  -- without a job to prune it. Rows another search is removing or refreshing are left to
  -- it (skip locked): two searches never wait on each other here, so never deadlock.
  delete from app.food_search_results as r
   where r.ctid = any (array(select o.ctid from app.food_search_results as o
                              where o.created_at <= v_expired order by o.created_at limit 10
                                for update skip locked));
  return v_page;
end
$$;

-- The foods a user logged before among those a search could rank onto its page: the
-- `logged` signal of api.food_search, which lifts such a food to the top of its tier. Read
-- from app.food_usage, never from the diary, at a cost bounded by the page and not by the
-- user's history:
--   the page's own foods;
--   the catalog's other candidates that could still rank into the page (app.catalog_food_search
--     keeps those of the page's last tier or better, in rank order, when names starting with
--     the query do not fill it), up to a page of those the user logged: among logged foods
--     the catalog's order is the page's, so no later one could enter;
--   the foods they logged whose name starts with the query, or with its typo-corrected form,
--     however far down the catalog's list of such names: the first 40 of each by name, as
--     the catalog ranks the first 40 names starting with a query (an index range);
--   their own foods that they logged (search ranks each of their own foods anyway).
-- So a logged food is lifted when the search finds it by name or among the catalog's
-- candidates for the query; one that matches only by trigram similarity and that those
-- leave out is ranked as any other food.
create or replace function app.logged_foods(p_user_id uuid, p_query text, p_page app.food_search_results)
returns uuid[]
language plpgsql
stable
-- The first 40 names are an ordered index scan that stops at 40. A cached plan estimates a
-- name range at a row or two and would rather read it by bitmap and sort it, which reads
-- every name in the range: all 900 of a user who logged 900 foods starting with the query.
set enable_bitmapscan = off
as $$
declare
  v_logged uuid[];
begin
  -- Each branch is an index range or one lookup per food, whatever the planner's estimate
  -- of a user's rows (a cached plan is made for the average user): foods are looked up by
  -- key one at a time (lateral subqueries, not a join the planner could turn into a scan of
  -- all the user's foods). The two branches most pages do not need (other candidates, a
  -- corrected query) are statements of their own, run only for a page that has them: a
  -- statement's every branch is set up on each run, needed or not. The same food may be
  -- named twice; the callers only ask whether a food is among them.
  v_logged := array(
    select c.id
      from unnest(p_page.food_ids) as c (id)
     cross join lateral (select from app.food_usage as u where u.user_id = p_user_id and u.food_id = c.id offset 0) as l
    union all
    (select u.food_id from app.food_usage as u
      where u.user_id = p_user_id and u.name_key ~>=~ p_query and u.name_key ~<~ (p_query || chr(1114111))
      order by u.name_key using ~<~
      limit 40)
    union all
    select u.food_id from app.food_usage as u where u.user_id = p_user_id and u.name_key is null);
  if cardinality(p_page.other_ids) > 0 then
    v_logged := v_logged || array(
      select c.id
        from unnest(p_page.other_ids) with ordinality as c (id, n)
       cross join lateral (select from app.food_usage as u
                            where u.user_id = p_user_id and u.food_id = c.id offset 0) as l
       order by c.n
       limit p_page.page_size);
  end if;
  if p_page.corrected is not null then
    v_logged := v_logged || array(
      select u.food_id from app.food_usage as u
       where u.user_id = p_user_id
         and u.name_key ~>=~ p_page.corrected and u.name_key ~<~ (p_page.corrected || chr(1114111))
       order by u.name_key using ~<~
       limit 40);
  end if;
  return v_logged;
end
$$;

-- The item of one catalog food as search shows it, remembered as the catalog's pages are: a
-- row of app.food_search_results keyed by the food's id with page size 0 (no search asks for
-- a page of none), served while the catalog's version stands and for an hour, pruned with
-- the pages. The foods a user's part of a search lifts onto the page (app.logged_foods) are
-- the user's own choice, up to a page of them: built afresh on every keystroke (about 40 µs
-- each on a quiet machine) they made the search of a user who logged more foods slower; a
-- remembered item is a lookup. Null when there is no such catalog food.
create or replace function app.remembered_food_item(p_food_id uuid, p_catalog_version bigint)
returns json
language plpgsql
as $$
declare
  v_item json;
begin
  select r.items[1] into v_item from app.food_search_results as r
   where r.query = p_food_id::text and r.page_size = 0 and r.catalog_version = p_catalog_version
     and r.created_at > now() - interval '1 hour';
  if v_item is not null then
    return v_item;
  end if;
  select app.food_values_json(f.id, false, f.name, f.brand, f.food_group, f.barcode, f.source, f.energy_kcal,
                              f.protein_g, f.fat_g, f.carbs_g, f.fiber_g, f.sugars_g, f.sodium_mg, f.saturated_fat_g,
                              f.serving_label, f.serving_g, app.food_portions_json(f.id))::json
    into v_item
    from app.foods as f where f.id = p_food_id;
  if v_item is null then
    return null;
  end if;
  insert into app.food_search_results (query, page_size, catalog_version, created_at, food_ids, tiers, scores, names,
                                       items)
  values (p_food_id::text, 0, p_catalog_version, now(), array[p_food_id], '{}', '{}', '{}', array[v_item])
  on conflict (query, page_size) do update
    set catalog_version = excluded.catalog_version, created_at = excluded.created_at, food_ids = excluded.food_ids,
        items = excluded.items;
  return v_item;
end
$$;

grant execute on function app.food_match(text, text, tsvector, tsquery, tsquery),
                          app.catalog_food_search(text, integer),
                          app.logged_foods(uuid, text, app.food_search_results),
                          app.remembered_food_item(uuid, bigint) to liftbase_api;

-- Remembered pages hold what these functions (and app_food.sql's item shape) computed:
-- applying this file again, in a release that changes any of them, retires those pages.
update app.food_catalog_version set version = version + 1;

-- The words of a name, as search sees them: lower case, split on anything not a letter or
-- digit, at least two characters.
create or replace function app.name_words(p_name text) returns setof text
language sql immutable parallel safe as $$
  select w from regexp_split_to_table(lower(p_name), '[^[:alnum:]]+') as w where length(w) >= 2
$$;
grant execute on function app.name_words(text) to liftbase_api;

-- Kept by the catalog itself, so every importer (and any future one) feeds it. Words of
-- renamed or deleted foods stay: a stale word only finds no food.
create or replace function app.add_food_name_words() returns trigger
language plpgsql as $$
begin
  insert into app.food_name_words (word)
  select distinct w from changed_foods as f cross join lateral app.name_words(f.name) as w
  on conflict do nothing;
  return null;
end
$$;
-- Where it fires (liftbase_meta_declarations.sql says how a trigger is declared):
-- 'single node': on Citus a trigger on a reference table runs on every node's copy, and
-- one that writes another table is refused; there the functions that make the change do
-- this work (docs/scaling.md).
select liftbase_meta.keep_trigger($$CREATE TRIGGER foods_name_words_insert AFTER INSERT ON app.foods REFERENCING NEW TABLE AS changed_foods FOR EACH STATEMENT EXECUTE FUNCTION app.add_food_name_words()$$, 'single node');
select liftbase_meta.keep_trigger($$CREATE TRIGGER foods_name_words_update AFTER UPDATE ON app.foods REFERENCING NEW TABLE AS changed_foods FOR EACH STATEMENT EXECUTE FUNCTION app.add_food_name_words()$$, 'single node');
