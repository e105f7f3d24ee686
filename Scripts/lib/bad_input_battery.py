#!/usr/bin/env python3
"""The bad-input battery: malformed input against every route of a running server.

Usage: bad_input_battery.py BASE_URL [CASES_JSON]
  BASE_URL    the server's root, e.g. http://127.0.0.1:18765 (routes under /api/v1)
  CASES_JSON  the cases (default: bad_input_cases.json beside this file)

Reads the routes from GET /openapi.json (every row of the endpoint table, with its path
parameters and whether it takes a body, JSON or CSV), registers and onboards a user of its
own through the API, makes the rows the field cases refer to, then sends every route the
malformed inputs that apply to it (bad_input_cases.json says which) and checks each
answer's status and error code. No answer may be a 500. For each route that writes (POST,
PUT, PATCH, DELETE), the user's GET /export document must be the same before and after
that route's cases, but for exported_at and import_runs (every import run is recorded,
refused ones too, docs/imports.md). Prints one line per failed case, then
"bad-input battery: N cases over M routes, F failed"; exits 1 when any case failed.
Python 3 standard library only.
"""
import json
import os
import re
import sys
import urllib.error
import urllib.request
import uuid

API = "/api/v1"
ZERO_UUID = "00000000-0000-0000-0000-000000000000"


class Server:
    def __init__(self, base):
        self.base = base.rstrip("/")

    def send(self, method, path, body=None, content_type="application/json", token=None):
        """(status, parsed JSON or None, raw bytes). path is sent as given (already encoded)."""
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else body.encode("utf-8")
        request = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", content_type)
        if token:
            request.add_header("Authorization", "Bearer " + token)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return status, parsed, raw

    def ok(self, method, path, body=None, token=None, expect=(200, 201, 204)):
        status, parsed, raw = self.send(method, path, None if body is None else json.dumps(body), token=token)
        if status not in expect:
            raise SystemExit(f"bad-input battery: setup {method} {path} answered {status}: {raw[:300]!r}")
        return parsed


def error_code(parsed):
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
        return parsed["error"].get("code")
    return None


def quote(text):
    return urllib.request.quote(text, safe="")


def matcher(paths):
    """A function telling whether (method, concrete path) matches a route of the table."""
    patterns = []
    for path, methods in paths:
        regex = "^" + re.sub(r"\\\{[^/]+\\\}", "[^/]+", re.escape(path)) + "$"
        patterns.append((re.compile(regex), methods))

    def matches(method, concrete):
        return any(p.match(concrete) and method in methods for p, methods in patterns)

    def path_exists(concrete):
        return any(p.match(concrete) for p, _ in patterns)

    return matches, path_exists


def fill(value, fixtures):
    """value with every {fixture} in its strings replaced (a whole-string fixture keeps its type)."""
    if isinstance(value, str):
        whole = re.fullmatch(r"\{([a-z_]+)\}", value)
        if whole and whole.group(1) in fixtures:
            return fixtures[whole.group(1)]
        return re.sub(r"\{([a-z_]+)\}", lambda m: str(fixtures.get(m.group(1), m.group(0))), value)
    if isinstance(value, list):
        return [fill(v, fixtures) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, fixtures) for k, v in value.items()}
    return value


def set_path(document, dotted, value):
    """A copy of document with the member at dotted ("training_sessions.0.session_date") set."""
    document = json.loads(json.dumps(document))
    keys = dotted.split(".")
    target = document
    for key in keys[:-1]:
        target = target[int(key)] if isinstance(target, list) else target[key]
    last = keys[-1]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return document


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    server = Server(sys.argv[1])
    cases_file = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "bad_input_cases.json")
    with open(cases_file, encoding="utf-8") as file:
        data = json.load(file)

    # The routes, as the server lists them.
    status, openapi, raw = server.send("GET", "/openapi.json")
    if status != 200 or not isinstance(openapi, dict):
        raise SystemExit(f"bad-input battery: GET /openapi.json answered {status}")
    routes = []
    for full_path, operations in sorted(openapi["paths"].items()):
        if not full_path.startswith(API + "/"):
            continue
        for method, operation in operations.items():
            content = (operation.get("requestBody") or {}).get("content", {})
            routes.append({
                "method": method.upper(), "path": full_path[len(API):],
                "parameters": [p["name"] for p in operation.get("parameters", []) if p.get("in") == "path"],
                "body": "csv" if "text/csv" in content else "image" if any(t.startswith("image/") for t in content)
                else "json" if content else None,
                "auth": bool(operation.get("security")),
            })
    key = lambda r: f"{r['method']} {r['path']}"
    last = data.get("order_last", [])
    routes.sort(key=lambda r: (last.index(key(r)) if key(r) in last else -1, r["path"], r["method"]))
    matches, path_exists = matcher([(r["path"], {x["method"] for x in routes if x["path"] == r["path"]}) for r in routes])

    # A user of the battery's own, onboarded, with the rows the cases refer to; a second one
    # that is not onboarded (for the onboarding route's fields).
    unique = uuid.uuid4().hex[:12]
    email, password = f"battery-{unique}@example.com", "battery pass 1"
    token = server.ok("POST", API + "/auth/register", {"email": email, "password": password, "display_name": "Battery"})["token"]
    fresh = server.ok("POST", API + "/auth/register", {"email": f"battery-fresh-{unique}@example.com", "password": password})["token"]
    server.ok("POST", API + "/onboarding/complete", {
        "goal_type": "maintaining", "goal_rate_per_week": 0, "height_cm": 175, "weight_kg": 75, "age_years": 35,
        "sex": "male", "activity_level": "moderate", "timezone": "Europe/Berlin"}, token)
    squat = next(i["id"] for i in server.ok("GET", API + "/exercises?q=barbell%20squat&limit=20", token=token)["items"]
                 if i["name"] == "Barbell Squat")
    fixtures = {
        "email": email, "password": password, "unique": unique, "squat": squat,
        "entry": server.ok("POST", API + "/nutrition/entries", {"name": "Fixture oats", "calories": 300, "source": "manual"}, token)["id"],
        "session": server.ok("POST", API + "/training/sessions", {"session_date": "2026-01-02", "name": "Fixture", "exercises": [
            {"exercise_id": squat, "sets": [{"reps": 5, "weight_kg": 100}]}]}, token)["id"],
        "plan": server.ok("POST", API + "/plans", {"name": "Fixture plan", "exercises": [
            {"exercise_id": squat, "sets": 3, "reps": 5}]}, token)["id"],
        "meal": server.ok("POST", API + "/meals/custom", {"name": "Fixture meal", "items": [
            {"name": "Rice", "calories": 200, "protein_g": 4, "carbs_g": 44, "fat_g": 1}]}, token)["id"],
        "exercise": server.ok("POST", API + "/exercises", {"name": f"Fixture move {unique}", "primary_muscles": ["chest"]}, token)["id"],
    }
    server.ok("POST", API + "/meals/favorites", {"name": "Fixture favorite", "calories": 100, "protein_g": 1, "carbs_g": 1, "fat_g": 1}, token)
    server.ok("PUT", API + "/user/exclusions", {"exercise_ids": [], "muscles": ["neck"]}, token)
    server.ok("PUT", API + "/user/targets", {"calories": 2300}, token)
    server.ok("PUT", API + "/equipment/selection", {"equipment_ids": ["barbell"]}, token)
    server.ok("POST", API + "/setup/complete", {}, token)
    server.ok("POST", API + "/program", {"goal": "strength", "training_age": "novice", "days_per_week": 3}, token)
    fixtures["program_session"] = server.ok("GET", API + "/program/next", token=token)["id"]
    fixtures["unique_uuid"] = str(uuid.uuid4())

    def export(user_token):
        status, document, raw = server.send("GET", API + "/export", token=user_token)
        if status != 200 or not isinstance(document, dict):
            return f"GET /export answered {status}"
        document.pop("exported_at", None)
        document.pop("import_runs", None)
        return json.dumps(document, sort_keys=True)

    def generic_path(route, parameter_value=None):
        path = route["path"]
        for name in route["parameters"]:
            value = parameter_value if parameter_value is not None else ZERO_UUID if name == "id" else "battery"
            if route["path"].startswith("/training/templates/"):
                value = parameter_value if parameter_value is not None else "battery"
            path = path.replace("{" + name + "}", value)
        return API + path

    failures = []
    count = 0
    route_count = 0
    deep = '{"a": ' + "[" * 1000 + "]" * 1000 + "}"
    for route in routes:
        name = key(route)
        route_count += 1
        cases = []  # (label, method, path, body, content_type, user token, expected status, expected code, check)

        def add(label, path, body=None, content_type="application/json", expect=400, code=None, check=None,
                method=route["method"], user=None):
            cases.append((label, method, path, body, content_type, user, expect, code, check))

        base = generic_path(route)
        # NUL in the query, in each path parameter, in a body string.
        add("NUL in a query parameter", base + "?battery=a%00b", code="invalid_text")
        for parameter in route["parameters"]:
            add(f"NUL in path parameter {parameter}", generic_path(route, "a%00b"), code="invalid_text")
        if route["body"] == "json":
            add("NUL byte in a body string", base, b'{"name": "a\x00b"}', code="invalid_text")
            add("escaped NUL (\\u0000) in a body string", base, '{"name": "a\\u0000b"}', code="invalid_text")
            add("1,000 levels of nesting", base, deep, code="body_too_deep")
            for text in data["non_object_bodies"]:
                add(f"body {text}", base, text, code="body_must_be_object")
            add("malformed JSON", base, '{"name": ', code="malformed_json")
            # A body SQL refuses too, so the request changes nothing whichever layer answers.
            add("a JSON route's body as text/plain", base, '"x"', content_type="text/plain", expect=415,
                code="unsupported_media_type")
        elif route["body"] == "image":
            # The body is the image's bytes: what they are is judged by them, not by the label.
            add("text labelled an image", base, "not an image", content_type="image/png", expect=415,
                code="unsupported_image")
            add("a PNG labelled JPEG", base, b"\x89PNG\r\n\x1a\n" + b"\x07" * 64, content_type="image/jpeg",
                expect=415, code="content_type_mismatch")
            add("no image at all", base, b"", content_type="image/png", expect=415, code="unsupported_image")
        elif route["body"] == "csv":
            add("NUL byte in a CSV body", base, b"Date,Workout Name\r\n2024-01-01 00:00:00,a\x00b\r\n",
                content_type="text/csv", code="invalid_text")
            add("a CSV route's body as application/json", base, '"x"', expect=415, code="unsupported_media_type")
        else:
            add("1,000 levels of nesting", base, deep, code="body_too_deep")
            for text in data["non_object_bodies"]:
                add(f"body {text}", base, text, code="body_must_be_object")
        # No such route under this one, and a method this path does not take.
        unknown = base + "/battery/x/y"
        if not path_exists(unknown[len(API):]):
            add("an unknown route under it", unknown, expect=404, code="not_found")
        concrete = base[len(API):]
        wrong = next((m for m in ("GET", "POST", "PUT", "PATCH", "DELETE") if not matches(m, concrete)), None)
        if wrong:
            add(f"method {wrong}", base, expect=405, code="method_not_allowed", method=wrong)
        # Ids that are not UUIDs.
        if name in data["not_found"]:
            for value in data["non_uuid_ids"]:
                add(f"id {value!r}", generic_path(route, quote(value)), None if route["body"] != "json" else "{}",
                    expect=404, code=data["not_found"][name])
        # Lists: limit and cursor.
        if name in data["lists"]:
            spec = data["lists"][name]
            path = API + fill(route["path"].replace("{id}", spec.get("path", {}).get("id", "{id}")), fixtures)
            query = "&".join(f"{k}={quote(v)}" for k, v in spec.get("query", {}).items())
            for limit in data["bad_limits"]:
                add(f"limit={limit}", f"{path}?{query}&limit={quote(limit)}".replace("?&", "?"), code="invalid_parameter",
                    check=("fields", "limit"))
            if "no_cursor" not in spec:
                add(f"cursor={data['garbage_cursor']}", f"{path}?{query}&cursor={quote(data['garbage_cursor'])}".replace("?&", "?"),
                    code="invalid_parameter", check=("fields", "cursor"))
        # Dates in the query.
        if name in data["query_dates"]:
            spec = data["query_dates"][name]
            parameters = spec if isinstance(spec, list) else spec["parameters"]
            query = "" if isinstance(spec, list) else "&".join(f"{k}={quote(fill(v, fixtures))}" for k, v in spec["query"].items())
            for parameter in parameters:
                for value in data["free_form_dates"]:
                    add(f"?{parameter}={value}", f"{base}?{query}&{parameter}={quote(value)}".replace("?&", "?"),
                        code="invalid_parameter", check=("fields", parameter))
        # Members of the wrong type, and free-form dates in the body.
        if name in data["fields"]:
            spec = data["fields"][name]
            path = API + route["path"]
            for parameter, value in spec.get("path", {}).items():
                path = path.replace("{" + parameter + "}", fill(value, fixtures))
            valid = fill(spec["body"], fixtures)
            expect = spec.get("expect", {"status": 422, "code": "validation_failed"})
            user = fresh if spec.get("user") == "fresh" else None
            for field, values in spec.get("wrong", {}).items():
                for value in values:
                    value = fill(value, fixtures)
                    add(f"{field}: {json.dumps(value)}", path, json.dumps(set_path(valid, field, value)),
                        expect=expect["status"], code=expect["code"], check=("field", field), user=user)
            # A member the route does not take (docs/input.md), refused before any is read;
            # the Liftbase export document reads what it knows and leaves the rest.
            if name != "POST /import/liftbase" and isinstance(valid, dict):
                add("a member the route does not take", path, json.dumps({**valid, "battery_unknown": 1}),
                    expect=422, code="unknown_field", check=("fields", "battery_unknown"), user=user)
            for field in spec.get("dates", []):
                for value in data["free_form_dates"]:
                    add(f"{field}: {json.dumps(value)}", path, json.dumps(set_path(valid, field, value)),
                        expect=expect["status"], code=expect["code"], check=("field", field.split(".")[-1]), user=user)

        writes = route["method"] != "GET"
        users = {fresh if any(c[5] == fresh for c in cases) else None, None} if writes else set()
        before = {u: export(u or token) for u in users}
        for label, method, path, body, content_type, user, expect, code, check in cases:
            count += 1
            user_token = user or token
            if name == "POST /auth/logout":
                # Each case with a session of its own: a logout that went through would end it.
                user_token = server.ok("POST", API + "/auth/login", {"email": email, "password": password})["token"]
            status, parsed, raw = server.send(method, path, body, content_type, token=user_token)
            got = error_code(parsed)
            problem = None
            if status != expect or (code and got != code):
                problem = f"expected {expect} {code or ''}".rstrip() + f", got {status} {got or raw[:120]!r}"
            elif check and check[0] == "fields":
                fields = (parsed or {}).get("error", {}).get("fields") or {}
                if check[1] not in fields:
                    problem = f"expected the error to name {check[1]} in fields, got {json.dumps(parsed)[:200]}"
            elif check and check[0] == "field":
                named = json.dumps(((parsed or {}).get("error") or {}).get("fields") or (parsed or {}).get("errors") or {})
                if check[1] not in named:
                    problem = f"expected the error to name {check[1]}, got {json.dumps(parsed)[:200]}"
            if problem:
                failures.append(f"FAIL {name}: {label}: {problem}")
        for user in users:
            count += 1
            if export(user or token) != before[user]:
                failures.append(f"FAIL {name}: the refused requests changed the {'fresh ' if user else ''}user's export")

    for line in failures:
        print(line)
    print(f"bad-input battery: {count} cases over {route_count} routes, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
