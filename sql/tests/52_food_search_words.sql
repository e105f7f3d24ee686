-- The catalog's word dictionary and the typo-tolerant full-text query of food search:
-- words follow the catalog (insert and rename), misspelt words are corrected against them,
-- the last word matches as a prefix, stop words and unknown words drop out, and search
-- through the API finds foods by corrected words anywhere in the name.
begin;
\ir support/helpers.psql
select plan(16);

insert into app.foods (id, source, source_id, name, food_group, energy_kcal, protein_g, fat_g, carbs_g, serving_label, serving_g)
values
  (md5('w:1')::uuid, 'off', 'w1', 'Quorvelle, smoked, sliced', 'Snacks', 100, 10, 5, 2, '100 g', 100),
  (md5('w:2')::uuid, 'off', 'w2', 'Brindleberry jam, Quorvelle-style', 'Sweets', 250, 0.5, 0.1, 60, '1 tbsp', 20);

select ok(exists (select from app.food_name_words where word = 'quorvelle'), 'inserted foods add their words');
select ok(exists (select from app.food_name_words where word = 'brindleberry'), 'every word of a name is added');
select ok(not exists (select from app.food_name_words where word = ','), 'punctuation is not a word');

update app.foods set name = 'Quorvelle, smoked, thinly sliced' where id = md5('w:1')::uuid;
select ok(exists (select from app.food_name_words where word = 'thinly'), 'renamed foods add their new words');

select is(array(select app.name_words('Crème brûlée, 2% fat')), array['crème', 'brûlée', 'fat'],
          'words: lower case, letters and digits, at least two characters');

select is((app.food_name_query('quorvelle')).terms, $$'quorvell' | 'quorvell':*$$::tsquery, 'a catalog word matches itself, the last one also as a prefix');
select is((app.food_name_query('quorvele smoked')).terms, $$'quorvell' & ( 'smoke' | 'smoke':* )$$::tsquery,
          'a misspelt word is replaced by the catalog words most like it');
select is((app.food_name_query('brindl')).terms, $$'brindl':*$$::tsquery, 'the last word matches as a prefix');
select is((app.food_name_query('quorvelle zzqxj')).terms, $$'quorvell'$$::tsquery, 'a word like no catalog word drops out (and the word before it is no longer last)');
select is((app.food_name_query('the')).terms, null, 'stop words alone give no query');
select is((app.food_name_query('')).terms, null, 'an empty query gives no query');
select is((app.food_name_query('quorvele, smoked')).corrected, 'quorvelle smoked', 'the corrected query replaces misspelt words');
select is((app.food_name_query('quorvelle smoked')).corrected, null, 'a query without typos needs no correction');

select pg_temp.sign_up('a', 'words-a@example.com', 'words a password');
set local role liftbase_api;

create function pg_temp.search(p_q text) returns text[] language plpgsql as $$
begin
  perform set_config('liftbase.user_id', '', true);
  return array(select i ->> 'name'
                 from json_array_elements(api.food_search((select token from tokens where name = 'a'), null,
                                                           jsonb_build_object('q', p_q)) -> 'items') as i);
end $$;

select ok(pg_temp.search('jam brindleberry') @> array['Brindleberry jam, Quorvelle-style'],
          'search finds foods by their words in any order');
select ok(pg_temp.search('brindelbery jam') @> array['Brindleberry jam, Quorvelle-style'],
          'search corrects a misspelt word');
select is((pg_temp.search('sliced quorvelle'))[1], 'Quorvelle, smoked, thinly sliced', 'the best match comes first');

select * from finish();
rollback;
