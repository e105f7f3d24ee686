-- Offline creates everywhere: every create takes an optional client_id (the device's id of
-- the row), and a repeat of the same client_id answers the first row
-- (app.replayed_key, sql/functions/app_responses.sql). Diary entries and sessions had one
-- already (0001, 0003); a plain unique index per table, leading with user_id.
alter table app.body_metrics add column client_id uuid;
alter table app.favorites add column client_id uuid;
alter table app.custom_meals add column client_id uuid;
alter table app.plans add column client_id uuid;
alter table app.user_foods add column client_id uuid;
alter table app.user_exercises add column client_id uuid;
alter table app.programs add column client_id uuid;
create unique index body_metrics_client_key on app.body_metrics (user_id, client_id);
create unique index favorites_client_key on app.favorites (user_id, client_id);
create unique index custom_meals_client_key on app.custom_meals (user_id, client_id);
create unique index plans_client_key on app.plans (user_id, client_id);
create unique index user_foods_client_key on app.user_foods (user_id, client_id);
create unique index user_exercises_client_key on app.user_exercises (user_id, client_id);
create unique index programs_client_key on app.programs (user_id, client_id);
