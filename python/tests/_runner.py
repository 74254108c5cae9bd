"""The bridge tests' runner when a test file runs as a script (the pt2 roots
have no pytest): every test_* function of the file, each reported, then the
count; exit status 1 when one failed. Under pytest the files need none of it."""
import sys


def run(namespace):
    tests = [(name, test) for name, test in sorted(namespace.items()) if name.startswith("test_") and callable(test)]
    failures = 0
    for name, test in tests:
        try:
            test()
            print("PASS", name)
        except Exception as exc:  # report every test, then the count
            failures += 1
            print("FAIL %s: %s: %s" % (name, type(exc).__name__, exc))
    print("%d of %d passed" % (len(tests) - failures, len(tests)))
    sys.exit(1 if failures else 0)
