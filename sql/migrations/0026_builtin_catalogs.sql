-- The built-in catalogs `liftbase migrate` loads from sql/data (the USDA SR28 foods, the
-- free-exercise-db exercises), each with the checksum of the files it was loaded from: a
-- migrate run loads a catalog only when its shipped files changed, so a second run changes
-- nothing.
create table liftbase_meta.builtin_catalogs (
  name text primary key,
  checksum text not null,
  loaded_at timestamptz not null default now()
);
