# The first-import step of Scripts/bench (`Scripts/bench --first-import`; docs/benchmarks.md,
# "First import"): does the first person to bring years of history to a new deployment wait
# longer than the next? Sourced by Scripts/bench once the cluster runs (PGHOST, $binary and
# $work set). It migrates a database of its own as a new deployment would (with the built-in
# catalogs, no other user), then imports the same files for a first and a second account,
# one after the other, through the API functions as the server calls them (SQL only: the
# HTTP layer adds the same parsing to both): a Strong history of 3,200 workouts (80,000
# sets) in the names of Strong's own exercise list, a Hevy history of 1,600 workouts
# (40,000 sets) in Hevy's, and a Cronometer diary of 50,000 servings. It prints each time,
# per 1,000 rows, the ratio of first to second, and the share of the workout sets that
# landed on catalog exercises and on exercises with a muscle.

first_db=liftbase_first_import
psql -qX -d postgres -c "drop database if exists $first_db" -c "create database $first_db"
DATABASE_URL="host=$PGHOST user=${PGUSER:-postgres} dbname=$first_db" "$binary" migrate >/dev/null

python3 - "$work" <<'PY'
import csv, hashlib, io, json, random, sys
from datetime import date, datetime, timedelta

folder = sys.argv[1]
random.seed(20261127)


def names(app, count):
    with open(f"sql/data/exercise-names/{app}.txt", encoding="utf-8") as file:
        return [line.strip() for line in file if line.strip()][:count]


def document(name, text):
    # As CSVImportDocument builds it: the header, then each record with the line it starts on.
    records = csv.reader(io.StringIO(text, newline=""))
    header, rows, line = next(records), [], 1
    for fields in records:
        start, line = line + 1, records.line_num
        rows.append({"line": start, "fields": fields})
    with open(f"{folder}/{name}.json", "w") as out:
        json.dump({"file_sha256": hashlib.sha256(text.encode()).hexdigest(), "header": header, "rows": rows}, out)


def timed(name):
    return any(word in name.lower() for word in ("plank", "hold", "hang", "stretch"))


# Bodyweight work is logged as reps alone, as people log it.
def bodyweight(name):
    return any(word in name.lower() for word in ("push up", "pushup", "push-up", "pull up", "chin up", "burpee", "jumping jack",
                                                 "crunch", "sit up", "lunge", "dip", "leg raise", "knee raise", "jump"))


# A lifter's week draws from the app's most common names, the first ones most often.
def workouts(app, count):
    lifts = names(app, 60)
    weights = [1 / (1 + k / 8) for k in range(len(lifts))]
    start = datetime(2016, 1, 4, 7, 0)
    for workout in range(count):
        when = start + timedelta(hours=44 * workout)
        yield workout, when, random.choices(lifts, weights, k=5)


strong = io.StringIO()
strong.write("Date,Workout Name,Duration,Exercise Name,Set Order,Weight,Reps,Distance,Seconds,Notes,Workout Notes,RPE\n")
for workout, when, lifts in workouts("strong", 3200):
    for lift in lifts:
        for order in range(1, 6):
            if timed(lift):
                strong.write(f'{when:%Y-%m-%d %H:%M:%S},"Workout {workout % 4}",1h 5m,"{lift}",{order},0,0,0,{30 + order * 5},,,\n')
            elif bodyweight(lift):
                strong.write(f'{when:%Y-%m-%d %H:%M:%S},"Workout {workout % 4}",1h 5m,"{lift}",{order},0,{8 + order % 5},0,0,,,\n')
            else:
                strong.write(f'{when:%Y-%m-%d %H:%M:%S},"Workout {workout % 4}",1h 5m,"{lift}",{order},'
                             f'{40 + workout % 60}.0,{5 + order % 4},0,0,,,8\n')
document("first-strong", strong.getvalue())

hevy = io.StringIO()
hevy.write('"title","start_time","end_time","description","exercise_title","superset_id","exercise_notes",'
           '"set_index","set_type","weight_kg","reps","distance_km","duration_seconds","rpe"\n')
for workout, when, lifts in workouts("hevy", 1600):
    start, end = f"{when:%-d %b %Y, %H:%M}", f"{when + timedelta(minutes=70):%-d %b %Y, %H:%M}"
    for lift in lifts:
        for index in range(5):
            measures = (f",,,{30 + index * 5}," if timed(lift) else f",{8 + index % 5},,," if bodyweight(lift)
                        else f"{40 + workout % 60},{5 + index % 4},,,")
            hevy.write(f'"Day {workout % 4}","{start}","{end}","","{lift}",,"",{index},"normal",{measures}\n')
document("first-hevy", hevy.getvalue())

diary = io.StringIO()
groups = ["Breakfast", "Lunch", "Dinner", "Snacks"]
diary.write("Day,Time,Group,Food Name,Amount,Energy (kcal),Protein (g),Carbs (g),Fat (g)\n")
for i in range(50000):
    day = date(2016, 1, 1) + timedelta(days=i // 20)
    diary.write(f'{day.isoformat()},,{groups[i % 4]},"Food {i % 137}","{100 + i % 50}.00 g",{200 + i % 300}.00,'
                f'{10 + i % 20}.0,{30 + i % 40}.0,{5 + i % 15}.0\n')
document("first-cronometer", diary.getvalue())
PY

# first_import FORMAT FILE EMAIL: prints the seconds the import took and the rows it imported,
# into a new account, as the API role, in one transaction (psql's start and the file's
# reading are the same for every call).
first_import() {
  local token started imported
  token=$(psql -tAX -d "$first_db" -c "select auth.start_session((auth.create_account('$3', 'bench password', null)).id)")
  started=$(date +%s.%N)
  imported=$(PGOPTIONS="-c role=liftbase_api" psql -qtAX -d "$first_db" -v token="$token" -v file="$2" <<SQL
\\set body \`cat :file\`
select api.import_$1(:'token', :'body'::jsonb, '{}') ->> 'imported';
SQL
)
  echo "$(python3 -c "print(round($(date +%s.%N) - $started, 2))") $imported"
}
printf "\nFirst import into a freshly migrated database, then the same file for a second account:\n"
for item in strong:first-strong hevy:first-hevy cronometer:first-cronometer; do
  read -r first_s rows < <(first_import "${item%%:*}" "$work/${item#*:}.json" "first-${item%%:*}@example.com")
  read -r second_s _ < <(first_import "${item%%:*}" "$work/${item#*:}.json" "second-${item%%:*}@example.com")
  printf "  %-10s %6s rows: first %6.2f s (%4.0f ms per 1,000), second %6.2f s (%4.0f ms per 1,000), first/second %.2f\n" \
    "${item%%:*}" "$rows" "$first_s" "$(python3 -c "print($first_s * 1e6 / $rows)")" "$second_s" \
    "$(python3 -c "print($second_s * 1e6 / $rows)")" "$(python3 -c "print($first_s / $second_s)")"
done
psql -tAX -d "$first_db" <<'SQL' | while IFS='|' read -r app sets on_catalog with_muscle; do
select split_part(u.email, '@', 1), count(*), round(100 * avg((e.exercise_id is not null)::integer), 1),
       round(100 * avg((cardinality(coalesce(c.primary_muscles, o.primary_muscles, '{}')) > 0)::integer), 1)
  from app.session_sets as s
  join auth.users as u on u.id = s.user_id
  join app.session_exercises as e on e.user_id = s.user_id and e.session_id = s.session_id and e.position = s.exercise_position
  left join app.exercises as c on c.id = e.exercise_id
  left join app.user_exercises as o on o.user_id = e.user_id and o.id = e.user_exercise_id
 where u.email like 'first-%'
 group by 1 order by 1;
SQL
  printf "  %-16s %6s sets: %5s %% on catalog exercises, %5s %% on exercises with a muscle\n" "$app" "$sets" "$on_catalog" "$with_muscle"
done
psql -qX -d postgres -c "drop database $first_db"
