# testsuite/: unit tests (CUnit) and run tests (NAME.stp + NAME.expect, in the guest).
include testsuite/unit-parser.mk
include testsuite/unit-runtime.mk
