-- What a health sample's day is (docs/health.md): the comment of 0094 said sleep counted on
-- the day of its end; it counts on the morning after its start (start + 6 hours), so the
-- segments of one night before and after midnight share a day.
comment on column app.health_samples.day is
  'The local day it counts on, in the account''s zone when it arrived: of start_at, or for sleep of start_at + 6 hours';
