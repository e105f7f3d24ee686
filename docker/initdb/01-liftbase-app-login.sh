#!/bin/bash
# Runs once, when the PostgreSQL volume is created: the server's own login, a member of
# liftbase_api only (liftbase migrate finds the role and leaves it as it is).
set -euo pipefail
psql -v ON_ERROR_STOP=1 -v app_password="$LIFTBASE_APP_PASSWORD" --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
create role liftbase_api nologin;
create role liftbase_app login password :'app_password' in role liftbase_api;
SQL
