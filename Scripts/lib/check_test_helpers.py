#!/usr/bin/env python3
"""The pgTAP tests' helpers live once (stdlib only; Scripts/test runs it).

sql/tests/support/helpers.psql holds the helpers two tests or more need. This fails when a
test file (sql/tests, sql/citus-tests, sql/catalog-tests) defines a pg_temp function that
helpers.psql defines too, or one whose text (its whitespace aside) another test file
defines as well: a helper copied instead of shared.

Usage: check_test_helpers.py [REPOSITORY]   (default: the current directory)
Prints one line per problem and exits 1 when there is any.
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_sql_files import statements  # noqa: E402

DEFINITION = re.compile(r"create (or replace )?function pg_temp\.([a-z_0-9]+)\s*\(", re.IGNORECASE)


def helpers_in(path):
    """Yields (name, normalized statement) for each pg_temp function the file defines."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for _, statement in statements(text):
        match = DEFINITION.match(statement)
        if match:
            yield match.group(2), " ".join(statement.split())


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    shared_path = os.path.join(root, "sql/tests/support/helpers.psql")
    shared = {name for name, _ in helpers_in(shared_path)}
    tests = sorted(glob.glob(os.path.join(root, "sql/tests/*.sql"))
                   + glob.glob(os.path.join(root, "sql/citus-tests/*.sql"))
                   + glob.glob(os.path.join(root, "sql/catalog-tests/*.sql")))
    problems = []
    seen = {}
    for path in tests:
        relative = os.path.relpath(path, root)
        for name, text in helpers_in(path):
            if name in shared:
                problems.append(f"{relative}: pg_temp.{name} is a shared helper (sql/tests/support/helpers.psql): "
                                "use it, or give this one another name")
            if text in seen and seen[text] != relative:
                problems.append(f"{relative}: pg_temp.{name} is a copy of the one in {seen[text]}: "
                                "move it to sql/tests/support/helpers.psql")
            seen.setdefault(text, relative)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} copied test helper(s)", file=sys.stderr)
        return 1
    print(f"test helpers: {len(shared)} shared, none copied in {len(tests)} test files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
