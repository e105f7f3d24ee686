-- A measure's entries newest first (GET /user/measurements?measure= or ?type_id=) read in
-- the order of the page, ties by id: the indexes of migration 0092 held no id, so a page of
-- one measure sorted every entry of it. A series reads the same indexes backwards.
drop index app.body_measurements_measure_idx;
drop index app.body_measurements_type_idx;
create index body_measurements_measure_idx on app.body_measurements (user_id, measure, recorded_at desc, id desc)
  where measure is not null;
create index body_measurements_type_idx on app.body_measurements (user_id, type_id, recorded_at desc, id desc)
  where type_id is not null;
