#!/usr/bin/env python3
"""Checks reports against docs/report.schema.json.

    check_report.py REPORT.json|DIR ...

A directory stands for every report.json below it. A report conforms when it
follows the schema and its program is no faster than its latency bound (nor
its looping round than the round's). Prints what does not conform and exits 1
if anything does; prints how many it checked.
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


def beaten_bounds(timing):
    """A program faster than its bound: a bug in the bound (docs/bound.md)."""
    bound, messages = timing["bound"], []
    if timing["latency_ns"] < bound["latency_ns"] * (1 - 1e-9):
        messages.append(f"timing/latency_ns {timing['latency_ns']} beats its bound "
                        f"{bound['latency_ns']}")
    if "round_ns" in timing and timing["round_ns"] < bound["round_ns"] * (1 - 1e-9):
        messages.append(f"timing/round_ns {timing['round_ns']} beats its bound "
                        f"{bound['round_ns']}")
    return messages


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
        beaten = [] if errors else beaten_bounds(report["timing"])
        for message in beaten:
            print(f"{path}: {message}")
        bad += bool(errors or beaten)
    print(f"{checked} reports checked, {bad} do not conform")
    sys.exit(1 if bad or not checked else 0)


if __name__ == "__main__":
    main()
