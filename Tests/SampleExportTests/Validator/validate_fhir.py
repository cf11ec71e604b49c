#!/usr/bin/env python3
"""Validate a FHIR JSON Bundle with the fhir.resources package from PyPI, independently of CareBridge.

usage: validate_fhir.py FILE            R4 models (fhir.resources 5.1.x, FHIR 4.0.1), strict
       validate_fhir.py FILE --r4b DIR  R4B pydantic models (fhir.resources 8.x installed with --target DIR)

Exit 0: valid, prints a JSON summary. Exit 1: invalid, errors on stderr. Exit 3: validator not installed.
Warnings the R4 models only log (e.g. an unreadable dateTime) count as errors.
"""
import json
import logging
import sys


def load(path):
    def no_duplicates(pairs):
        keys = [key for key, _ in pairs]
        duplicated = sorted({key for key in keys if keys.count(key) > 1})
        if duplicated:
            raise ValueError("duplicate keys %s" % duplicated)
        return dict(pairs)

    with open(path, encoding="utf-8") as handle:
        return json.load(handle, object_pairs_hook=no_duplicates)


def validate_r4(data):
    try:
        import fhir.resources
        from fhir.resources.bundle import Bundle
    except ImportError as error:
        print("fhir.resources (R4) is not installed: %s" % error, file=sys.stderr)
        sys.exit(3)
    if getattr(fhir.resources, "__fhir_version__", "") != "4.0.1":
        print("fhir.resources %s has FHIR %s models, not R4 (4.0.1); install fhir.resources==5.1.1"
              % (getattr(fhir.resources, "__version__", "?"), getattr(fhir.resources, "__fhir_version__", "?")),
              file=sys.stderr)
        sys.exit(3)

    logged = []

    class Collect(logging.Handler):
        def emit(self, record):
            if record.levelno >= logging.WARNING:
                logged.append(record.getMessage())

    logging.getLogger().addHandler(Collect())
    bundle = Bundle(data, strict=True)
    if logged:
        raise ValueError("; ".join(logged))
    return bundle, "fhir.resources %s (FHIR %s)" % (fhir.resources.__version__, fhir.resources.__fhir_version__)


def validate_r4b(data, directory):
    # fhir.resources 5.x registers `fhir` as a namespace package at start-up; forget it so that the
    # 8.x copy in `directory` is imported instead.
    for name in [name for name in sys.modules if name == "fhir" or name.startswith("fhir.")]:
        del sys.modules[name]
    sys.path.insert(0, directory)
    try:
        import fhir.resources
        from fhir.resources.R4B.bundle import Bundle
    except ImportError as error:
        print("fhir.resources (R4B) is not installed in %s: %s" % (directory, error), file=sys.stderr)
        sys.exit(3)
    bundle = Bundle.model_validate(data)
    return bundle, "fhir.resources %s (R4B)" % fhir.resources.__version__


def main():
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--r4b"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    try:
        data = load(sys.argv[1])
        if len(sys.argv) == 4:
            bundle, validator = validate_r4b(data, sys.argv[3])
        else:
            bundle, validator = validate_r4(data)
    except SystemExit:
        raise
    except Exception as error:  # the validators raise their own error types
        print("%s: %s" % (type(error).__name__, error), file=sys.stderr)
        sys.exit(1)
    types = {}
    for entry in bundle.entry or []:
        name = type(entry.resource).__name__
        types[name] = types.get(name, 0) + 1
    print(json.dumps({"validator": validator, "type": bundle.type, "entries": len(bundle.entry or []),
                      "resourceTypes": types}, sort_keys=True))


main()
