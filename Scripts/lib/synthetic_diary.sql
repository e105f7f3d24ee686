-- Years of food diary and weigh-ins for one user, for benchmarks: about 8 diary entries a
-- day (6 to 10) over the :days days up to today (default 1,825: five years, about 15,000
-- entries) from :foods catalog foods (default 400; a few staples most days, then a long
-- tail), a weigh-in on most mornings (about 1,800 over five years), waist and hips
-- measured and front and side photos taken each Sunday, 6 to 9 glasses of water a day,
-- and a phone's and a watch's hourly steps from Apple Health from 07:00 to 22:00 (about
-- 58,000 samples over five years). Run after the user's onboarding, as a superuser on a
-- benchmark database with a food catalog
-- (synthetic_foods.sql):
--   psql -v user_id=UUID [-v days=1825] [-v foods=400] -f Scripts/lib/synthetic_diary.sql
-- Written through the rules the API writes with: each entry's values come from
-- app.food_macros, as for an entry made from a food, and the diary's triggers see every
-- entry; each weigh-in is followed by app.record_targets, as POST /user/metrics does.
\set ON_ERROR_STOP on
\if :{?days}
\else
  \set days 1825
\endif
\if :{?foods}
\else
  \set foods 400
\endif

-- The user's foods: a fixed sample of the catalog, the first 20 the staples; and the values
-- of each in the servings logged, by the rule of an entry made from a food.
create temporary table synthetic_foods as
select f.id, row_number() over (order by md5(:'user_id' || f.id::text)) as n
  from app.foods as f
 order by md5(:'user_id' || f.id::text)
 limit :foods;
create temporary table synthetic_servings as
select f.id, s.servings, m.*
  from synthetic_foods as f
 cross join unnest(array[0.5, 1, 1.5, 2]::numeric[]) as s (servings)
 cross join lateral app.food_macros(:'user_id', f.id, null, s.servings) as m;

create temporary table synthetic_days as
select (current_date - d)::date as day, 6 + abs(hashtext(:'user_id' || ':day:' || d)) % 5 as entries
  from generate_series(0, :days - 1) as d;

-- Half the entries are staples (foods 1–20), the rest any of the foods.
insert into app.food_entries (user_id, entry_date, meal_type, name, food_id, servings, calories, protein_g, carbs_g,
                              fat_g, source, created_at, updated_at)
select :'user_id', d.day, (array['breakfast', 'lunch', 'dinner', 'snack'])[1 + (k - 1) * 4 / d.entries],
       m.name, f.id, m.servings, m.calories, m.protein_g, m.carbs_g, m.fat_g, 'search',
       d.day + time '07:00' + k * interval '90 minutes', d.day + time '07:00' + k * interval '90 minutes'
  from synthetic_days as d
 cross join generate_series(1, d.entries) as k
 cross join lateral (select abs(hashtext(:'user_id' || d.day::text || ':' || k)) as h) as r
  join synthetic_foods as f
    on f.n = case when r.h % 2 = 0 then 1 + r.h / 2 % 20 else 1 + r.h / 2 % :foods end
  join synthetic_servings as m on m.id = f.id and m.servings = (array[0.5, 1, 1, 1.5, 2])[1 + r.h / 7 % 5];

-- Weigh-ins, oldest first, each followed by the targets it recomputes.
select set_config('synthetic.user_id', :'user_id', false);
do $$
declare
  v_user_id uuid := current_setting('synthetic.user_id')::uuid;
  v_day record;
begin
  for v_day in select d.day, row_number() over (order by d.day) as n from synthetic_days as d
                where abs(hashtext(v_user_id::text || ':weigh:' || d.day)) % 50 <> 0 order by d.day loop
    insert into app.body_metrics (user_id, recorded_at, weight_kg)
    values (v_user_id, v_day.day + time '07:00',
            round((84 - 6 * (1 - exp(-v_day.n / 400.0)) + sin(v_day.n / 9.0) * 0.8
                   + (abs(hashtext(v_user_id::text || v_day.day)) % 10 - 5) / 10.0)::numeric, 1));
    perform app.record_targets(v_user_id, 'metrics');
  end loop;
end
$$;

-- Waist and hips each Sunday morning (about 520 entries over five years).
insert into app.body_measurements (user_id, measure, value, recorded_at)
select :'user_id', m.measure, round((m.start - 4 * (1 - exp(-(d.day - (current_date - :days)) / 400.0))
                                     + (abs(hashtext(:'user_id' || m.measure || d.day)) % 10 - 5) / 10.0)::numeric, 1),
       d.day + time '07:05'
  from synthetic_days as d
 cross join (values ('waist', 90.0), ('hips', 102.0)) as m (measure, start)
 where extract(isodow from d.day) = 7;

-- Progress photos: front and side each Sunday morning (about 520 over five years), each a
-- 2 KB stand-in for an image (a list never reads the bytes).
with photo as (
  insert into app.progress_photos (user_id, taken_on, pose, content_type, byte_size, sha256)
  select :'user_id', d.day, p.pose, 'image/jpeg', 2048, encode(sha256(convert_to(d.day || p.pose, 'UTF8')), 'hex')
    from synthetic_days as d
   cross join (values ('front'), ('side')) as p (pose)
   where extract(isodow from d.day) = 7
  returning id)
insert into app.progress_photo_images (user_id, photo_id, bytes)
select :'user_id', photo.id, '\xffd8ff'::bytea || decode(repeat('00', 2045), 'hex') from photo;

-- Water: 6 to 9 glasses of 250 ml a day (about 14,000 entries over five years).
insert into app.water_entries (user_id, entry_date, recorded_at, amount_ml)
select :'user_id', d.day, d.day + time '07:30' + k * interval '100 minutes', 250
  from synthetic_days as d
 cross join generate_series(1, 6 + abs(hashtext(:'user_id' || ':water:' || d.day)) % 4) as k;

-- Steps: the phone and the watch each hour from 07:00 to 22:00 (the watch counts a little
-- less), and each day's value as a batch computes it (app.refresh_health_days).
insert into app.health_samples (user_id, platform, sample_id, type, value, start_at, end_at, source_app, device, day)
select :'user_id', 'apple_health', d.day || '-' || h || '-' || x.device, 'steps',
       (200 + abs(hashtext(:'user_id' || d.day || h)) % 900) * x.factor, d.day + make_interval(hours => h),
       d.day + make_interval(hours => h + 1), 'Health', x.device, d.day
  from synthetic_days as d
 cross join generate_series(7, 21) as h
 cross join (values ('iPhone', 1.0), ('Apple Watch', 0.9)) as x (device, factor);
select app.refresh_health_days(:'user_id', array(select 'steps' from synthetic_days), array(select day from synthetic_days));

analyze app.food_entries, app.body_metrics, app.target_snapshots, app.health_metrics, app.body_measurements,
  app.water_entries, app.health_samples, app.health_days, app.progress_photos;
