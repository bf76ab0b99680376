#!/usr/bin/env python3
"""Validates a Touchstone report against its tool's JSON schema in docs/schemas (jsonschema, Debian's
python3-jsonschema; offline: references resolve to the files beside the schema).

    validate_report.py SCHEMA_DIR REPORT.json [more reports...]

The schema is chosen by the report's "tool". Prints "valid: <report>" or the first error's path and
message, and exits 1 on any invalid report."""
import json
import warnings
import os
import sys

try:
    import jsonschema
except ImportError:
    # A Python other than Debian's (pyenv) may come first on PATH; Debian's has the package.
    if sys.executable != "/usr/bin/python3" and os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    raise


def main():
    warnings.simplefilter("ignore", DeprecationWarning)  # RefResolver, deprecated in newer jsonschema
    schema_dir = os.path.abspath(sys.argv[1])
    failed = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            report = json.load(f)
        tool = report.get("tool", "")
        schema_path = os.path.join(schema_dir, tool + ".schema.json")
        if not os.path.exists(schema_path):
            print(f"invalid: {path}: no schema for tool '{tool}'")
            failed += 1
            continue
        with open(schema_path) as f:
            schema = json.load(f)
        resolver = jsonschema.RefResolver(base_uri="file://" + schema_dir + "/", referrer=schema)
        validator = jsonschema.Draft7Validator(schema, resolver=resolver)
        errors = sorted(validator.iter_errors(report), key=lambda e: list(e.absolute_path))
        if errors:
            e = errors[0]
            where = "$" + "".join(f"[{p!r}]" for p in e.absolute_path)
            print(f"invalid: {path}: {where}: {e.message[:300]} ({len(errors)} errors)")
            failed += 1
        else:
            print(f"valid: {path} against {os.path.basename(schema_path)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
