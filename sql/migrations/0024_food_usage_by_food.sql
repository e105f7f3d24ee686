-- app.food_usage's second index (0020) served only the catalog's foreign key actions, by
-- food and name. A search looks up each of its page's foods among the user's logged foods;
-- when one user owns most rows, the cached plan (made for a user estimated to own a third of
-- them) preferred that index to the primary key and fetched every other user's row of each
-- food before discarding it. By food and then user, the index still serves the foreign
-- keys, and answers "did this user log this food" exactly, whichever of the two a plan uses.
drop index app.food_usage_food_idx;
create index food_usage_food_idx on app.food_usage (food_id, user_id);
