# `make mutate` (t/mutate/): every mutant of t/mutate/mutants.txt applied
# in turn to a scratch copy of this tree under $(B)/mutate/, built, and
# the tests that cover it run.  Not part of `check`: it builds and tests
# once per mutant.  MUTANTS=id,id runs only those; MUTATE_FLOOR is the
# score below which it fails (issue 20: 95).
MUTATE_FLOOR ?= 95
MUTANTS ?=
.PHONY: mutate mutate-artifacts
mutate: $(DEPS_STAMP)
	@python3 t/mutate/mutate.py --src . --scratch $(B)/mutate/src --floor $(MUTATE_FLOOR) $(if $(MUTANTS),--only $(MUTANTS))

# What the scratch copy builds before each mutant's tests: what `check` runs.
mutate-artifacts: $(TEST_ARTIFACTS)
