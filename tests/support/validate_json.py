"""Validates a JSON document against a JSON Schema (draft 2020-12), for the test scripts that check
rightsize's reports and specs against their published schemas.

Usage: validate_json.py SCHEMA FILE. Prints the first five problems as "/json/pointer: message"
and exits 1 when there is any, 0 when the document is valid. Needs python3-jsonschema.
"""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
document = json.load(open(sys.argv[2]))
validator = jsonschema.Draft202012Validator(schema)
errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
for e in errors[:5]:
    print("  /" + "/".join(str(p) for p in e.absolute_path) + ": " + e.message[:200])
sys.exit(1 if errors else 0)
