#!/usr/bin/env python3
"""Read a CSV file with Python's csv module (RFC 4180 dialect) and print its rows as a JSON array of objects.

usage: read_csv.py FILE
"""
import csv
import json
import sys

with open(sys.argv[1], newline="", encoding="utf-8") as handle:
    rows = list(csv.DictReader(handle, strict=True))
print(json.dumps(rows))
