-- Food search that stays fast on a catalog of millions: candidates come from index scans
-- that stop early (a prefix range on a btree, nearest neighbours on a GiST trigram index),
-- and only those few hundred are ranked.
create index foods_name_prefix_idx on app.foods (lower(name) text_pattern_ops);
create index foods_name_trgm_gist_idx on app.foods using gist (lower(name) gist_trgm_ops);
