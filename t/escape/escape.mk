# The escape suite (t/escape/): one binary per probe in t/escape/probes/,
# plus the fixture helper t/escape/run stands up for them.  Included by
# the GNUmakefile, which puts $(ESCAPE_BINS) into `make check`.
ESCAPE_PROBE_SRCS := $(wildcard t/escape/probes/*.c)
ESCAPE_PROBES := $(patsubst t/escape/probes/%.c,$(B)/t/escape/probes/%,$(ESCAPE_PROBE_SRCS))
ESCAPE_BINS := $(ESCAPE_PROBES) $(B)/t/escape/escape-fixture

$(B)/t/escape/probes/%: t/escape/probes/%.c t/escape/probe.c t/escape/probe.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  PROBE   $@"
	@$(CC) $(TOOL_CFLAGS) -It/escape -o $@ $< t/escape/probe.c $(TOOL_LDFLAGS)

$(B)/t/escape/escape-fixture: t/escape/fixture.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  HELPER  $@"
	@$(CC) $(TOOL_CFLAGS) -o $@ $< $(TOOL_LDFLAGS)

# `make escape-suite` builds just these; `sh t/escape/run` runs them.
.PHONY: escape-suite
escape-suite: $(ESCAPE_BINS)
