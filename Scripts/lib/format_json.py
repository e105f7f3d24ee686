#!/usr/bin/env python3
"""Formats the contract files (sql/contract/*.json) one way: two-space indents, and any
object or array that fits on one line of at most 110 characters written on one line.
Usage: format_json.py FILE... (rewrites each file in place); --check lists the files that
would change and exits 1."""
import json
import sys

WIDTH = 110


def render(value, indent=0, prefix=0):
    """value as text starting at column indent + prefix, its inner lines indented by indent."""
    flat = json.dumps(value, ensure_ascii=False)
    if not isinstance(value, (dict, list)) or indent + prefix + len(flat) <= WIDTH:
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = []
        for key, member in value.items():
            name = json.dumps(key, ensure_ascii=False) + ": "
            items.append(pad + name + render(member, indent + 2, len(name)))
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    items = [pad + render(v, indent + 2) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def main(arguments):
    check = "--check" in arguments
    changed = []
    for path in [a for a in arguments if a != "--check"]:
        with open(path, encoding="utf-8") as file:
            text = file.read()
        formatted = render(json.loads(text)) + "\n"
        if formatted != text:
            changed.append(path)
            if not check:
                with open(path, "w", encoding="utf-8") as file:
                    file.write(formatted)
    if check and changed:
        print("not formatted (Scripts/lib/format_json.py FILE): " + ", ".join(changed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
