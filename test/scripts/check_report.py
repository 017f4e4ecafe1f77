#!/usr/bin/env python3
"""Checks reports against docs/report.schema.json.

    check_report.py REPORT.json|DIR ...

A directory stands for every report.json below it. Prints one line per
report that does not conform and exits 1 if any; prints how many it checked.
"""
import json
import os
import sys

import jsonschema

SCHEMA = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "report.schema.json")


def reports(paths):
    for path in paths:
        if os.path.isdir(path):
            for root, _, files in os.walk(path):
                if "report.json" in files:
                    yield os.path.join(root, "report.json")
        else:
            yield path


def main():
    with open(SCHEMA) as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    checked, bad = 0, 0
    for path in reports(sys.argv[1:]):
        checked += 1
        with open(path) as f:
            report = json.load(f)
        errors = sorted(validator.iter_errors(report), key=lambda e: list(e.absolute_path))
        for error in errors[:5]:
            where = "/".join(str(p) for p in error.absolute_path) or "(top)"
            print(f"{path}: {where}: {error.message}")
        bad += bool(errors)
    print(f"{checked} reports checked, {bad} do not conform")
    sys.exit(1 if bad or not checked else 0)


if __name__ == "__main__":
    main()
