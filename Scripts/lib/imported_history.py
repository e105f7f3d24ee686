#!/usr/bin/env python3
"""Imports workout exports into a new account and says how much of them the product sees.

    imported_history.py EMAIL FORMAT:FILE [FORMAT:FILE ...]

With PG* variables naming a database migrated with the built-in catalogs, as its owner:
makes an account EMAIL, imports each file through the API function of its format
(api.import_strong, api.import_hevy, api.import_fitnotes, called as the API role, as the
server calls them), and prints for each file its rows, imported, skipped and errors, then
for all of them: the share of imported sets that landed on catalog exercises and the share
on exercises with a muscle. Exits 1 when a file is refused, when below 90 % of the sets are
on the catalog, or below 95 % on exercises with a muscle (the floor docs/imports.md gives).

The CSV is turned into the import document as the HTTP layer does (CSVImportDocument):
{file_sha256, header, rows: [{line, fields}]}, line being the line a record starts on.
"""
import csv
import hashlib
import io
import json
import os
import subprocess
import sys


def document(path):
    with open(path, "rb") as file:
        data = file.read()
    text = data.decode("utf-8-sig")
    records = csv.reader(io.StringIO(text, newline=""))
    header = next(records)
    rows, line = [], records.line_num
    for fields in records:
        start, line = line + 1, records.line_num
        if all(field == "" for field in fields):
            continue
        rows.append({"line": start, "fields": fields})
    return {"file_sha256": hashlib.sha256(data).hexdigest(), "header": header, "rows": rows}


def psql(sql, variables=(), role=None):
    env = dict(os.environ)
    if role:
        env["PGOPTIONS"] = (env.get("PGOPTIONS", "") + f" -c role={role}").strip()
    command = ["psql", "-qtAX", "-v", "ON_ERROR_STOP=1"]
    for name, value in variables:
        command += ["-v", f"{name}={value}"]
    result = subprocess.run(command, input=sql, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(result.stderr.strip())
    return result.stdout.strip()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    email, files = sys.argv[1], sys.argv[2:]
    user_id = psql("select (auth.create_account(:'email', 'history check', null)).id;", [("email", email)])
    token = psql("select auth.start_session(:'user_id');", [("user_id", user_id)])
    failed = False
    for item in files:
        format_name, path = item.split(":", 1)
        body = json.dumps(document(path))
        answer = json.loads(psql(f"select api.import_{format_name}(:'token', :'body'::jsonb, '{{}}');",
                                 [("token", token), ("body", body)], role="liftbase_api"))
        rows = len(json.loads(body)["rows"])
        refused = "error" in answer
        failed |= refused
        print(f"{os.path.basename(path)}: {rows} rows in, {answer['imported']} imported, "
              f"{len(answer['skipped'])} skipped, {len(answer['errors'])} errors" + (" (refused)" if refused else ""))
    shares = psql("""
        select count(*), coalesce(round(avg((e.exercise_id is not null)::integer), 3), 0),
               coalesce(round(avg((cardinality(coalesce(c.primary_muscles, u.primary_muscles, '{}')) > 0)::integer), 3), 0)
          from app.session_sets as s
          join app.session_exercises as e
            on e.user_id = s.user_id and e.session_id = s.session_id and e.position = s.exercise_position
          left join app.exercises as c on c.id = e.exercise_id
          left join app.user_exercises as u on u.user_id = e.user_id and u.id = e.user_exercise_id
         where s.user_id = :'user_id';""", [("user_id", user_id)])
    sets, on_catalog, with_muscle = shares.split("|")
    print(f"{sets} sets: {float(on_catalog):.1%} on catalog exercises, {float(with_muscle):.1%} on exercises with a muscle")
    if failed or float(on_catalog) < 0.90 or float(with_muscle) < 0.95:
        sys.exit("below the floor: 90 % of sets on catalog exercises, 95 % on exercises with a muscle, no file refused")


main()
