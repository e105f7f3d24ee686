-- Food search remembers the catalog's part of recent searches (app.catalog_food_search):
-- the same few thousand queries are searched again and again, and ranking a query's
-- candidates by trigram similarity costs milliseconds, while the catalog changes only when
-- an operator imports. What a user sees of their own (own foods, foods they logged) is
-- never remembered: api.food_search adds it to the catalog's page on every request.

-- The catalog's version: every statement that changes foods or portions adds one, in its
-- own transaction, so a page remembered from an older catalog is never served again. A
-- table row, not a sequence: a sequence moves before the import commits, and a search in
-- between would remember the old catalog under the new number.
create table app.food_catalog_version (
  only_row boolean primary key default true check (only_row),
  version  bigint not null
);
insert into app.food_catalog_version (version) values (1);

create function app.bump_food_catalog_version() returns trigger
language plpgsql as $$
begin
  update app.food_catalog_version set version = version + 1;
  return null;
end
$$;
create trigger foods_catalog_version after insert or update or delete or truncate on app.foods
  for each statement execute function app.bump_food_catalog_version();
create trigger food_portions_catalog_version after insert or update or delete or truncate on app.food_portions
  for each statement execute function app.bump_food_catalog_version();

-- One remembered page per query and page size: the catalog foods ranked best, with what
-- ranking them again beside the user's own needs (tier, score, name) and the items in the
-- API's shape. Unlogged: a cache, rebuilt by the next searches after a crash, and not worth
-- WAL on every new query. Rows older than an hour are not served and are removed a few at a
-- time by later searches, so the table holds about an hour of distinct queries.
create unlogged table app.food_search_results (
  query           text not null,
  page_size       integer not null,
  catalog_version bigint not null,
  created_at      timestamptz not null default now(),
  -- The typo-corrected full-text query (app.food_name_query), to match the user's own foods
  -- the same way; null when names starting with the query filled the page.
  terms           tsquery,
  food_ids        uuid[] not null,
  tiers           integer[] not null,
  scores          double precision[] not null,
  names           text[] not null,
  -- json, not jsonb: a page is sent as the text it was stored as, without re-encoding
  -- 15 kB of jsonb on every request (most of a remembered search's cost).
  items           json[] not null,
  primary key (query, page_size)
);
create index food_search_results_created_idx on app.food_search_results (created_at);
-- Searches (as the API role) fill and prune the cache; only the catalog's writers move its version.
revoke insert, update, delete on app.food_catalog_version from liftbase_api;

-- api.food_search now returns json (sql/functions/api_food.sql defines it again).
drop function if exists api.food_search(text, jsonb, jsonb);
