#!/usr/bin/env python3
"""Layer rules of sql/functions (stdlib only; Scripts/test runs it).

  a. an api_*.sql file defines functions of schema api only;
  b. no other file defines an api function;
  c. a function file holds only statements that can run again on every change of the file:
     create or replace function/view, grant/revoke, comment on, and the few exceptions
     listed in EXCEPTIONS, each with its reason. Anything else (a drop, an alter, a table)
     runs once, so it belongs in a migration;
  d. a line is at most 120 columns, but for a trigger declaration (its text is PostgreSQL's
     one line) and the part of a line inside a string literal (text that cannot be split).

Usage: check_sql_files.py [FUNCTIONS_DIR]   (default: sql/functions)
Prints one line per problem, file:line: rule: statement, and exits 1 when there is any.
"""
import os
import re
import sys

ALLOWED = re.compile(r"(create or replace (function|view) |grant |revoke |comment on )")

# (file, or * for any, statement pattern, why it may run again and again)
EXCEPTIONS = [
    ("*", r"select liftbase_meta\.keep_trigger\(\$\$create trigger [^$]+\$\$(, '(single node|citus)')?\);$",
     "a trigger declared beside its function, made only when it differs from the live one "
     "(liftbase_meta_declarations.sql)"),
    ("*", r"select liftbase_meta\.on_citus_(plan_each_call|as_plpgsql)\('[a-z_]+\.[a-z_0-9]+\([a-z_., \[\]]*\)'\);$",
     "a function's form on Citus, said right after its definition and made again with it "
     "(liftbase_meta_declarations.sql)"),
    ("app_analytics.sql", r"create or replace aggregate app\.weight_trend\(",
     "an aggregate is a function of functions, created or replaced like one"),
    ("app_food.sql", r"update app\.food_catalog_version set version = version \+ 1;$",
     "applying the file again retires remembered search pages (docs/operations.md)"),
    ("app_food_search.sql", r"update app\.food_catalog_version set version = version \+ 1;$",
     "applying the file again retires remembered search pages (docs/operations.md)"),
    ("reporting_views.sql",
     r"select set_config\('role', 'liftbase_(reporting_owner|owner)', true\), "
     r"set_config\('citus\.enable_ddl_propagation', '(off|on)', true\);$",
     "the reporting views are owned by liftbase_reporting_owner (migration 0014), and made on "
     "Citus's coordinator only (docs/scaling.md)"),
    ("reporting_views.sql", r"do \$citus\$ ",
     "on Citus, moves each view's query into a security-definer function made again with the "
     "view (docs/scaling.md); nothing on a single node"),
    ("reporting_views.sql",
     r"alter default privileges for role liftbase_reporting_owner revoke execute on functions from public;$",
     "idempotent: the reporting owner's functions stay private until granted"),
    ("reporting_views.sql", r"drop view if exists reporting\.[a-z_]+(, reporting\.[a-z_]+)*;$",
     "the views are dropped and made again so that one may change its columns"),
    ("reporting_views.sql", r"create view reporting\.[a-z_]+ as ",
     "made again right after the drop above (create or replace cannot drop a column)"),
]

DEFINITION = re.compile(r'create or replace (function|view|aggregate) ("?[a-z_0-9]+"?)(\.("?[a-z_0-9]+"?))?')
DOLLAR_TAG = re.compile(r"\$([A-Za-z_][A-Za-z_0-9]*)?\$")


def statements(text):
    """Yields (line, statement) with comments left out and quoted text kept whole."""
    i, n, line = 0, len(text), 1
    start_line, current = None, []

    def emit():
        nonlocal current, start_line
        statement = "".join(current).strip()
        result = (start_line, statement) if statement else None
        current, start_line = [], None
        return result

    while i < n:
        c = text[i]
        if c == "-" and text.startswith("--", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c == "/" and text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            line += text.count("\n", i, j)
            current.append(" ")
            i = j
            continue
        if start_line is None and not c.isspace():
            start_line = line
        if c == ";":
            current.append(c)
            i += 1
            result = emit()
            if result:
                yield result
            continue
        if c in "'\"":
            j = i + 1
            while j < n:
                if text[j] == c and text.startswith(c * 2, j):
                    j += 2
                elif text[j] == "\\" and c == "'" and i > 0 and text[i - 1] in "eE":
                    j += 2
                elif text[j] == c:
                    break
                else:
                    j += 1
            j = min(j + 1, n)
        elif c == "$" and DOLLAR_TAG.match(text, i):
            tag = DOLLAR_TAG.match(text, i).group(0)
            end = text.find(tag, i + len(tag))
            j = n if end < 0 else end + len(tag)
        else:
            j = i + 1
        current.append(text[i:j])
        line += text.count("\n", i, j)
        i = j
    result = emit()
    if result:
        yield result


def normalized(statement):
    """Lower case, one space between words (quoted text included: enough for a prefix)."""
    return re.sub(r"\s+", " ", statement).lower()


MAX_COLUMNS = 120


def long_lines(text):
    """Yields (line number, columns) of each line longer than MAX_COLUMNS outside string
    literals ('...', which may span lines) that is not a trigger declaration. Comments are
    read to their end, an apostrophe in one opening nothing."""
    in_string = False
    for number, line in enumerate(text.split("\n"), start=1):
        outside, i = 0, 0
        while i < len(line):
            c = line[i]
            if in_string:
                if c == "'" and line.startswith("''", i):
                    i += 2
                    continue
                if c == "'":
                    in_string = False
                    outside += 1
                i += 1
                continue
            if line.startswith("--", i):
                outside += len(line) - i
                break
            if c == "'":
                in_string = True
            outside += 1
            i += 1
        if outside > MAX_COLUMNS and "liftbase_meta.keep_trigger($$CREATE TRIGGER" not in line:
            yield number, len(line)


def check(folder):
    problems = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".sql"):
            continue
        path = os.path.join(folder, name)
        with open(path, encoding="utf-8") as file:
            text = file.read()
        is_api_file = name.startswith("api_")
        for number, columns in long_lines(text):
            problems.append(f"{path}:{number}: rule (d) a line is at most {MAX_COLUMNS} columns outside its "
                            f"string literals: this one is {columns}")
        for line, statement in statements(text):
            flat = normalized(statement)
            where = f"{path}:{line}"
            shown = flat if len(flat) <= 90 else flat[:87] + "..."
            definition = DEFINITION.match(flat)
            if definition:
                schema = definition.group(2).strip('"') if definition.group(3) else None
                if schema is None:
                    problems.append(f"{where}: a definition must name its schema: {shown}")
                elif is_api_file and schema != "api":
                    problems.append(f"{where}: rule (a) an api_*.sql file defines api functions only "
                                    f"(move this one to the app_*/auth_* file of its domain): {shown}")
                elif not is_api_file and schema == "api":
                    problems.append(f"{where}: rule (b) api functions live in the api_*.sql file of their route "
                                    f"group only: {shown}")
            if ALLOWED.match(flat):
                continue
            if any(file in (name, "*") and re.match(pattern, flat) for file, pattern, _ in EXCEPTIONS):
                continue
            problems.append(f"{where}: rule (c) a function file holds only create or replace function/view, "
                            f"grant/revoke and comment on; a statement that runs once belongs in a migration: {shown}")
    return problems


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "sql/functions"
    problems = check(folder)
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} problem(s) in {folder}", file=sys.stderr)
        return 1
    print(f"{folder}: every file keeps its layer, holds only repeatable statements, and lines of at most "
          f"{MAX_COLUMNS} columns")
    return 0


if __name__ == "__main__":
    sys.exit(main())
