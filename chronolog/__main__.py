from chronolog.checkout import missing_dependency

try:
    from chronolog.cli import main
except ModuleNotFoundError as e:  # the checkout run by a Python without chronolog's dependencies
    import sys

    if missing_dependency(e) is None:
        raise
    sys.exit(print(missing_dependency(e), file=sys.stderr) or 2)

main()
