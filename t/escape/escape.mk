# The escape suite (t/escape/): one binary per probe in t/escape/probes/,
# plus the fixture helper t/escape/run stands up for them, and a copy of
# the harness beside them, so that $(B)/t/escape/ has the layout `make
# install` gives $(LIBEXECDIR)/stockade/escape/ (where `stockade compare`
# finds the suite).  Included by the GNUmakefile, which builds
# $(ESCAPE_BINS) with `all` and installs them.
ESCAPE_PROBE_SRCS := $(wildcard t/escape/probes/*.c)
ESCAPE_PROBES := $(patsubst t/escape/probes/%.c,$(B)/t/escape/probes/%,$(ESCAPE_PROBE_SRCS))
ESCAPE_BINS := $(ESCAPE_PROBES) $(B)/t/escape/escape-fixture $(B)/t/escape/run

$(B)/t/escape/run: t/escape/run
	@mkdir -p $(@D)
	@install -m 0755 $< $@

# probe.c once, linked into every probe: compiling it again for each of
# them was most of the suite's build time (and `make install` builds it).
$(B)/t/escape/probe.o: t/escape/probe.c t/escape/probe.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(CC) $(TOOL_CFLAGS) -It/escape -c -o $@ $<

$(B)/t/escape/probes/%: t/escape/probes/%.c $(B)/t/escape/probe.o t/escape/probe.h | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  PROBE   $@"
	@$(CC) $(TOOL_CFLAGS) -It/escape -o $@ $< $(B)/t/escape/probe.o $(TOOL_LDFLAGS)

$(B)/t/escape/escape-fixture: t/escape/fixture.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  HELPER  $@"
	@$(CC) $(TOOL_CFLAGS) -o $@ $< $(TOOL_LDFLAGS)

# `make escape-suite` builds just these; `sh t/escape/run` runs them.
.PHONY: escape-suite
escape-suite: $(ESCAPE_BINS)

# For `make check-browser` only (t/escape/check-browser.sh): decodes the
# screenshot of the compare page.  Not installed, not part of `check`.
$(B)/t/escape/pngcheck: t/escape/pngcheck.c
	@mkdir -p $(@D)
	@echo "  HELPER  $@"
	@$(CC) $(TOOL_CFLAGS) -o $@ $< $(TOOL_LDFLAGS) -lz
