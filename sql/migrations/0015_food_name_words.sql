-- The distinct words of catalog food names. Typo-tolerant search corrects a misspelt query
-- word against these few thousand words (trigram index) and then finds foods by the
-- corrected words through the full-text index, instead of ranking every food name by
-- trigram distance (a k-nearest scan of the whole catalog, the slowest part of a search).

-- The words of a name, as search sees them: lower case, split on anything not a letter or
-- digit, at least two characters.
create function app.name_words(p_name text) returns setof text
language sql immutable parallel safe as $$
  select w from regexp_split_to_table(lower(p_name), '[^[:alnum:]]+') as w where length(w) >= 2
$$;
grant execute on function app.name_words(text) to liftbase_api;

-- Collation C: the primary key's btree then also serves prefix matches (LIKE 'chick%').
create table app.food_name_words (word text collate "C" primary key);
create index food_name_words_trgm_idx on app.food_name_words using gin (word gin_trgm_ops);
revoke insert, update, delete on app.food_name_words from liftbase_api;
grant select on app.food_name_words to liftbase_api;

insert into app.food_name_words (word)
select distinct w from app.foods as f cross join lateral app.name_words(f.name) as w;
analyze app.food_name_words;

-- Kept by the catalog itself, so every importer (and any future one) feeds it. Words of
-- renamed or deleted foods stay: a stale word only finds no food.
create function app.add_food_name_words() returns trigger
language plpgsql as $$
begin
  insert into app.food_name_words (word)
  select distinct w from changed_foods as f cross join lateral app.name_words(f.name) as w
  on conflict do nothing;
  return null;
end
$$;
create trigger foods_name_words_insert after insert on app.foods
  referencing new table as changed_foods for each statement execute function app.add_food_name_words();
create trigger foods_name_words_update after update on app.foods
  referencing new table as changed_foods for each statement execute function app.add_food_name_words();
