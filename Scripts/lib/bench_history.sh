# The history step of Scripts/bench (`Scripts/bench --history`; docs/benchmarks.md,
# "History"): does a loyal user wait longer than a new one? Sourced by Scripts/bench once
# the cluster is migrated (PGHOST, PGDATABASE and pgbench_run set). It loads, through the
# real rules (Scripts/lib/synthetic_diary.sql and synthetic_training.sql), a five-year user
# and a user of 13 weeks with the same habits among ordinary users (synthetic_users.sql),
# then runs every hot read as the API role with `pgbench -M prepared` for both, side by
# side: p50 and p99 at $history_connections connections, and the ratio of the p50s. SQL
# only: the Swift server adds a constant on top of each call and is not needed to compare
# the two users.
#   BENCH_HISTORY_SECONDS (default 3)  BENCH_HISTORY_CONNECTIONS (default 16)
#   BENCH_HISTORY_USERS (default 1000)  BENCH_HISTORY_FOODS (catalog size, default 50000)

history_seconds=${BENCH_HISTORY_SECONDS:-3}
history_connections=${BENCH_HISTORY_CONNECTIONS:-16}
history_users=${BENCH_HISTORY_USERS:-1000}
history_foods=${BENCH_HISTORY_FOODS:-50000}
started=$(date +%s)

echo "history: a catalog of $history_foods foods and $history_users ordinary users..."
psql -qX -o /dev/null -v count="$history_foods" -f Scripts/lib/synthetic_foods.sql
psql -qX -o /dev/null -v users="$history_users" -f Scripts/lib/synthetic_users.sql

# Two accounts with known tokens (made in SQL: no bcrypt), onboarded through the API: a
# five-year user and a new one who started 13 weeks ago with the same habits, so that every
# default window (12 weeks of training, 30 days of diary) holds as much for one as for the
# other and only the years before differ.
onboarding='{"goal_type":"cutting","goal_rate_per_week":-0.5,"height_cm":180,"weight_kg":84,"age_years":34,"sex":"male","activity_level":"moderate","timezone":"Europe/Berlin"}'
psql -qX -o /dev/null -v ON_ERROR_STOP=1 -v onboarding="$onboarding" <<'SQL'
with users as (
  insert into auth.users (email, password_hash)
  values ('history-veteran@bench.example.com', 'not-a-login'), ('history-new@bench.example.com', 'not-a-login')
  returning id, split_part(email, '@', 1) as token
), settings as (
  insert into app.user_settings (user_id) select id from users
)
insert into auth.sessions (token_hash, user_id, expires_at)
select auth.token_hash(token), id, now() + interval '1 day' from users;
select api.onboarding_complete('history-veteran', :'onboarding', '{}');
select api.onboarding_complete('history-new', :'onboarding', '{}');
SQL
veteran_id=$(psql -tAX -c "select id from auth.users where email = 'history-veteran@bench.example.com'")
new_id=$(psql -tAX -c "select id from auth.users where email = 'history-new@bench.example.com'")

echo "history: five years for one user, 13 weeks for the other (the real rules write them)..."
psql -qX -o /dev/null -v user_id="$veteran_id" -v days_per_week=4 -f Scripts/lib/synthetic_training.sql
psql -qX -o /dev/null -v user_id="$veteran_id" -f Scripts/lib/synthetic_diary.sql
psql -qX -o /dev/null -v user_id="$new_id" -v days_per_week=4 -v days=91 -f Scripts/lib/synthetic_training.sql
psql -qX -o /dev/null -v user_id="$new_id" -v days=91 -f Scripts/lib/synthetic_diary.sql

# What both have beside their history, through the API: a program, favorites, a meal.
psql -qX -o /dev/null -v ON_ERROR_STOP=1 <<'SQL'
create temporary table history_foods as
select f.id, row_number() over (order by f.id) as n from app.foods as f where lower(f.name) like 'banana%' limit 2;
select api.program_create(t, '{"goal":"hypertrophy","training_age":"intermediate","days_per_week":4}', '{}'),
       api.custom_meal_create(t, jsonb_build_object('name', 'Breakfast bowl', 'items', jsonb_build_array(
         jsonb_build_object('food_item_id', (select id from history_foods where n = 1), 'servings', 1),
         jsonb_build_object('food_item_id', (select id from history_foods where n = 2), 'servings', 2))), '{}')
  from unnest(array['history-veteran', 'history-new']) as t;
select api.favorite_create(t, jsonb_build_object('name', 'Usual snack ' || n, 'calories', 150 + n, 'protein_g', 10,
                                                 'carbs_g', 15, 'fat_g', 5), '{}')
  from unnest(array['history-veteran', 'history-new']) as t, generate_series(1, 12) as n;
SQL
psql -qX -o /dev/null -c "vacuum (analyze)"
# user_summary ID → "entries foods sessions sets weigh-ins"
user_summary() {
  psql -tAX -F ' ' -v id="$1" <<'SQL'
select (select count(*) from app.food_entries where user_id = :'id'),
       (select count(distinct food_id) from app.food_entries where user_id = :'id'),
       (select count(*) from app.training_sessions where user_id = :'id'),
       (select sum(set_count) from app.training_sessions where user_id = :'id'),
       (select count(*) from app.body_metrics where user_id = :'id');
SQL
}
read -r entries foods sessions sets weighins < <(user_summary "$veteran_id")
read -r new_entries new_foods new_sessions new_sets new_weighins < <(user_summary "$new_id")
echo "history: loaded in $(( $(date +%s) - started )) s"

# The parameters of the calls, as a client of each user would send them.
bench_press=$(psql -tAX -c "select id from app.exercises where name = 'Barbell Bench Press'")
read -r today week_start month_ago < <(psql -tAX -F ' ' -v id="$veteran_id" <<'SQL'
select app.user_today(:'id'), date_trunc('week', app.user_today(:'id'))::date, app.user_today(:'id') - 30;
SQL
)
# The change feed after a cursor: each user's last 100 changes (a device that synced a while
# ago): their recent weigh-ins and health metrics, targets, program, meal and favorites.
last_changes_cursor() {
  psql -tAX -v id="$1" <<'SQL'
select greatest(last_seq - 100, 0) from app.sync_state where user_id = :'id';
SQL
}
veteran_cursor=$(last_changes_cursor "$veteran_id")
new_cursor=$(last_changes_cursor "$new_id")
history_reads=(
  "food_search|{\"q\": \"banana\"}|search by keystroke (a remembered page)"
  "food_search|{\"q\": \"bananna\"}|search, a typo (a remembered page)"
  "entries_list|{\"date\": \"$today\"}|diary of today"
  "nutrition_daily|{}|daily totals"
  "favorites_list|{}|favorites"
  "custom_meals_list|{}|custom meals"
  "sessions_list|{}|sessions, first page"
  "session_last|{}|last session"
  "session_in_progress|{}|in-progress session"
  "weekly_summary|{\"week_start\": \"$week_start\"}|weekly summary"
  "program_next|{}|program next"
  "analytics_volume|{}|volume (default window)"
  "analytics_e1rm|{\"exercise_id\": \"$bench_press\"}|e1RM bench press (no range)"
  "analytics_rpe_distribution|{}|RPE distribution (no range)"
  "analytics_workouts|{}|workouts (default window)"
  "analytics_nutrition|{}|nutrition (default window)"
  "analytics_weight|{\"from\": \"$month_ago\"}|weight, last 30 days"
  "measurement_series|{\"measure\": \"weight\", \"from\": \"$month_ago\"}|weight series, last 30 days"
  "measurement_series|{\"measure\": \"waist\", \"from\": \"$month_ago\"}|waist series, last 30 days"
  "measurements_list|{\"limit\": \"20\"}|measurements, a page of 20 (both fill it)"
  "water_day|{}|water of today"
  "progress_photos_list|{\"limit\": \"8\"}|progress photos, a page of 8 (both fill it)"
  "health_daily|{\"type\": \"steps\", \"from\": \"$month_ago\"}|steps per day, last 30 days"
  "metrics_today|{}|metrics today"
  "exercises_list|{\"q\": \"bench\"}|exercise search"
  "exercise_substitutions|{\"id\": \"$bench_press\"}|substitutions"
  "me|{}|/me"
  # The feed's first page is the user's current state from its oldest change: each user's
  # settings, goal, profile and first weigh-in, then their first sessions (the generators
  # write the training before the diary). 50 changes hold 45 sessions for both; at the
  # default 100 the new user's page would end in diary entries, lighter than sessions.
  "sync_changes|{\"limit\": \"50\"}|sync feed, first page (50, no cursor)"
  "sync_changes|{\"cursor\": \"$veteran_cursor\"}|sync feed, after a cursor (100)|{\"cursor\": \"$new_cursor\"}"
)
# history_sql FUNCTION ARGS_JSON: a new pgbench file for that call (the server's statement),
# named by $file.
history_files=0
history_sql() {
  history_files=$((history_files + 1))
  file="$work/history_$history_files.sql"
  printf "select r::text, current_setting('liftbase.response_status', true), current_setting('liftbase.response_headers', true) from api.%s(:token, app.request_body(null, '%s'), '%s'::jsonb) as r;\n" "$1" "$1" "$2" > "$file"
}

printf "\nHistory: a five-year user (%s diary entries of %s foods, %s sessions, %s sets, %s weigh-ins)\n" \
  "$entries" "$foods" "$sessions" "$sets" "$weighins"
printf "beside a new user of 13 weeks with the same habits (%s entries of %s foods, %s sessions, %s sets,\n" \
  "$new_entries" "$new_foods" "$new_sessions" "$new_sets"
printf "%s weigh-ins), among %s ordinary users (a month each).\n" "$new_weighins" "$history_users"
printf "SQL only: pgbench -M prepared as liftbase_api, %s connections, %s s per run (1 s warm-up first).\n" \
  "$history_connections" "$history_seconds"
printf "The Swift server adds the same constant to both users' calls and is not run here.\n\n"
printf "%-36s %11s %11s %11s %11s %7s\n" "call" "5y p50 ms" "5y p99 ms" "new p50 ms" "new p99 ms" "ratio"
over=0
for read in "${history_reads[@]}"; do
  # FUNCTION|ARGS|LABEL[|THE NEW USER'S ARGS, when theirs differ]
  IFS='|' read -r function args label new_args <<< "$read"
  history_sql "$function" "$args"
  veteran_file=$file
  if [ -n "$new_args" ]; then history_sql "$function" "$new_args"; fi
  new_file=$file
  # The answers must be answers, not errors: one call each first.
  for user in history-veteran history-new; do
    if [ "$user" = history-veteran ]; then file=$veteran_file; else file=$new_file; fi
    if ! (cd "$work" && PGOPTIONS="-c role=liftbase_api" pgbench -n -M prepared -t 1 -D token="$user" -f "$file" \
            liftbase_bench > "$work/check.txt" 2>&1); then
      echo "$function failed for $user:" >&2; cat "$work/check.txt" >&2; exit 1
    fi
  done
  pgbench_run "$veteran_file" history-veteran "$((history_connections / 4))" 1 >/dev/null
  read -r _ old_p50 old_p99 < <(pgbench_run "$veteran_file" history-veteran "$history_connections" "$history_seconds")
  pgbench_run "$new_file" history-new "$((history_connections / 4))" 1 >/dev/null
  read -r _ new_p50 new_p99 < <(pgbench_run "$new_file" history-new "$history_connections" "$history_seconds")
  ratio=$(python3 -c "print(f'{$old_p50 / max($new_p50, 0.01):.2f}')")
  mark=""
  if python3 -c "import sys; sys.exit(0 if $ratio > 1.5 else 1)"; then mark=" > 1.5"; over=$((over + 1)); fi
  printf "%-36s %11s %11s %11s %11s %7s%s\n" "$label" "$old_p50" "$old_p99" "$new_p50" "$new_p99" "$ratio" "$mark"
done

# Search by keystroke on one connection: the SQL time of one call, nothing queued before it.
history_sql food_search '{"q": "banana"}'
read -r _ old_p50 old_p99 < <(pgbench_run "$file" history-veteran 1 "$history_seconds")
read -r _ new_p50 new_p99 < <(pgbench_run "$file" history-new 1 "$history_seconds")
printf "%-36s %11s %11s %11s %11s %7s\n" "search, 1 connection" "$old_p50" "$old_p99" "$new_p50" "$new_p99" \
  "$(python3 -c "print(f'{$old_p50 / max($new_p50, 0.01):.2f}')")"

# The write: a diary entry from a catalog food (what keeps the search's logged foods).
food=$(psql -tAX -c "select id from app.foods where lower(name) like 'banana%' order by id limit 1")
entry="{\"food_item_id\":\"$food\",\"servings\":1,\"meal_type\":\"snack\",\"source\":\"search\"}"
cat > "$work/history_entry.sql" <<SQL
select r::text, current_setting('liftbase.response_status', true), current_setting('liftbase.response_headers', true) from api.entry_create(:token, app.request_body('$entry', 'entry_create'), '{}'::jsonb) as r;
SQL
read -r old_tps old_p50 old_p99 < <(pgbench_run "$work/history_entry.sql" history-veteran "$history_connections" "$history_seconds")
read -r new_tps new_p50 new_p99 < <(pgbench_run "$work/history_entry.sql" history-new "$history_connections" "$history_seconds")
printf "%-36s %11s %11s %11s %11s %7s\n" "diary insert (POST entry)" "$old_p50" "$old_p99" "$new_p50" "$new_p99" \
  "$(python3 -c "print(f'{$old_p50 / max($new_p50, 0.01):.2f}')")"
printf "%-36s %11s %23s\n" "  inserts per second" "$old_tps" "$new_tps"
# The same insert by 16 ordinary users at once, one each (16 connections of one user logging
# one food all wait on that user's row of the food in app.food_usage, one commit after the
# other; a user's own requests rarely overlap so).
psql -qX -o /dev/null <<'SQL'
insert into auth.sessions (token_hash, user_id, expires_at)
select auth.token_hash('history-ordinary-' || n), u.id, now() + interval '1 day'
  from (select id, row_number() over (order by email) as n from auth.users where email like 'ordinary-%') as u
 where n <= 16;
SQL
sed -e "s/(:token,/('history-ordinary-' || :client_id + 1,/" "$work/history_entry.sql" > "$work/history_entry_users.sql"
read -r users_tps users_p50 users_p99 < <(pgbench_run "$work/history_entry_users.sql" unused 16 "$history_seconds")
printf "%-36s %11s %11s %23s\n" "diary insert, 16 users at once" "$users_p50" "$users_p99" "$users_tps per second"
# A health batch of 5,000 samples (the most one call takes): written new, sent again as
# held, then every value changed; each timed once as its statement (psql \timing), as the
# API role.
health_batch() {
  psql -qX -v ON_ERROR_STOP=1 -v factor="$1" <<'SQL' | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
select jsonb_build_object('platform', 'health_connect', 'samples', jsonb_agg(jsonb_build_object(
         'sample_id', 'batch-' || n, 'type', 'steps', 'value', 100 + n % 50 * :factor, 'unit', 'count',
         'start', now() - interval '20 days' + n * interval '5 minutes',
         'end', now() - interval '20 days' + n * interval '5 minutes' + interval '4 minutes',
         'source_app', 'Health Connect', 'device', 'Pixel')))::text as batch
  from generate_series(1, 5000) as n \gset
set role liftbase_api;
\timing on
select api.health_samples_sync('history-veteran', :'batch', '{}') is not null;
SQL
}
printf "%-36s %11s ms (new) %11s ms (as held) %11s ms (changed)\n" "health batch, 5,000 samples" \
  "$(health_batch 1)" "$(health_batch 1)" "$(health_batch 2)"
printf "\nhistory step: %s s; %s call(s) over 1.5× the new user's p50\n" "$(( $(date +%s) - started ))" "$over"
