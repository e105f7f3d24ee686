#!/usr/bin/env python3
"""Checks that docs/scaling.md, "Where the workarounds live", names every function of
sql/functions whose comments or body mention Citus, and only those (liftbase_meta's
distribution functions are described apart and not listed).

usage: Scripts/lib/check_citus_notes.py [ROOT]   (default: the repository)
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
create = re.compile(r"^create or replace function (\w+\.\w+)")


def functions_mentioning_citus():
    """Each function's text runs from the comment above its create to the next one's comment."""
    found = {}
    for path in sorted((root / "sql/functions").glob("*.sql")):
        lines = path.read_text().split("\n")
        starts = [i for i, line in enumerate(lines) if create.match(line)]

        def comment_start(i):
            while i > 0 and lines[i - 1].startswith("--"):
                i -= 1
            return i

        for k, i in enumerate(starts):
            name = create.match(lines[i]).group(1)
            end = comment_start(starts[k + 1]) if k + 1 < len(starts) else len(lines)
            if not name.startswith("liftbase_meta.") and "Citus" in "\n".join(lines[comment_start(i):end]):
                found[name] = path.name
    return found


def functions_listed():
    text = (root / "docs/scaling.md").read_text()
    section = text.split("### Where the workarounds live", 1)[1].split("\n#", 1)[0]
    return set(re.findall(r"`((?:api|app|auth|reporting)\.\w+)`", section))


mentioning = functions_mentioning_citus()
listed = functions_listed()
problems = [f"{name} ({mentioning[name]}) mentions Citus and is not listed" for name in sorted(set(mentioning) - listed)]
problems += [f"{name} is listed and no function file says it works around Citus" for name in sorted(listed - set(mentioning))]
if problems:
    print('docs/scaling.md, "Where the workarounds live", is out of date:', *problems, sep="\n  ", file=sys.stderr)
    sys.exit(1)
print(f"docs/scaling.md names the {len(listed)} functions that carry a Citus workaround")
