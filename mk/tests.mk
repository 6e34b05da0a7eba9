# Tests: CUnit binaries (t/unit for the core, lib/<name>/t for lib/,
# modules/<name>/t for a module), test-only modules, helper programs, the
# escape suite, and `make check`, which runs them all (t/run-tests.sh).

# The shared CUnit runner, compiled once.
$(O)/t/unit/main.o: t/unit/main.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(CC) $(LIB_CFLAGS) -MMD -MP -c -o $@ $<

# The core's: t/unit/test_*.c against the core library.
UNIT_OBJS := $(patsubst %.c,$(O)/%.o,$(filter-out t/unit/main.c,$(wildcard t/unit/*.c)))
$(O)/t/unit/%.o: t/unit/%.c $(PATH_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(CC) $(CORE_CFLAGS) $(PATH_DEFS) $(DEV_DEFS) -It/unit -MMD -MP -c -o $@ $<
$(B)/t/unit-tests: $(UNIT_OBJS) $(O)/t/unit/main.o $(CORE_DEV_O) $(CORE_A) $(LIB_APPROVALS_A) $(LIB_COMMON_A)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	@$(CC) $(CORE_CFLAGS) -o $@ $(UNIT_OBJS) $(O)/t/unit/main.o $(CORE_DEV_O) $(EXE_LDFLAGS) $(CORE_LINK) -lcunit

# A library's or a module's own: <dir>/t/test_*.c, linked with its objects
# (not the .so, so functions a <name>_internal.h declares can be reached).
# unit_rule NAME DIR OBJS LIBS
define unit_rule
$(1)_TEST_OBJS := $(patsubst %.c,$(O)/%.o,$(wildcard $(2)/t/test_*.c))
$(O)/$(2)/t/%.o: $(2)/t/%.c | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	@$$(CC) $$(LIB_CFLAGS) -I$(2) -It/unit -MMD -MP -c -o $$@ $$<
$(B)/t/$(1)-unit: $$($(1)_TEST_OBJS) $(3) $(O)/t/unit/main.o
	@mkdir -p $$(@D)
	@echo "  LINK    $$@"
	@$$(CC) $$(LIB_CFLAGS) -o $$@ $$($(1)_TEST_OBJS) $(3) $(O)/t/unit/main.o $$(EXE_LDFLAGS) $(4) -lcunit
endef
LIB_UNIT_BINS := $(foreach l,$(LIB_NAMES),$(if $(wildcard lib/$(l)/t/test_*.c),$(B)/t/lib$(l)-unit))
$(foreach l,$(LIB_NAMES),$(if $(wildcard lib/$(l)/t/test_*.c),\
        $(eval $(call unit_rule,lib$(l),lib/$(l),$(B)/lib/libstk-$(l).a $(LIB_COMMON_A),$(PKG_LIBS)))))
MODULE_UNIT_BINS := $(foreach m,$(MODULES),$(if $(wildcard modules/$(m)/t/test_*.c),$(B)/t/$(m)-unit))
$(foreach m,$(MODULES),$(if $(wildcard modules/$(m)/t/test_*.c),\
        $(eval $(call unit_rule,$(m),modules/$(m),$$($(m)_OBJS) $(call module_libs,$(m)),$$($(m)_LIBS)))))

# Test-only modules (never installed): t/modules/<name>.c
TEST_MODULE_SRCS := $(wildcard t/modules/*.c)
TEST_MODULE_SOS := $(patsubst t/modules/%.c,$(B)/t/modules/%.$(SOEXT),$(TEST_MODULE_SRCS))
$(O)/t/modules/%.o: t/modules/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@$(CC) $(LIB_CFLAGS) -MMD -MP -c -o $@ $<
$(B)/t/modules/%.$(SOEXT): $(O)/t/modules/%.o mk/module.map
	@mkdir -p $(@D)
	@echo "  MODULE  $@"
	@$(CC) $(LIB_CFLAGS) $(SHARED) -o $@ $< $(EXPORTS) $(ALL_LDFLAGS)

# Helper C programs used by the integration tests: t/helpers/<name>.c
# Elsewhere than Linux: only the helpers of the modules built there (the
# t/helpers ones and libseccomp are Linux's).
ifeq ($(MODULE_OS),Linux)
T_HELPER_SRCS := $(wildcard t/helpers/*.c) $(wildcard modules/*/t/*-helper.c)
HELPER_LIBS := -lseccomp -lcurl -lpthread
else
T_HELPER_SRCS := $(foreach m,$(MODULES),$(wildcard modules/$(m)/t/*-helper.c))
HELPER_LIBS := -lcurl -lpthread
endif
T_HELPERS := $(foreach s,$(T_HELPER_SRCS),$(B)/t/helpers/$(basename $(notdir $(s))))
# A helper may include a header next to it (the proxy tests' client code).
define helper_rule
$(B)/t/helpers/$(basename $(notdir $(1))): $(1) $(wildcard $(dir $(1))*.h) | $(DEPS_STAMP)
	@mkdir -p $$(@D)
	@echo "  HELPER  $$@"
	@$$(CC) $$(TOOL_CFLAGS) -o $$@ $(1) $$(TOOL_LDFLAGS) $$(PKG_LIBS) $$(HELPER_LIBS)
endef
$(foreach s,$(T_HELPER_SRCS),$(eval $(call helper_rule,$(s))))

# The escape suite (t/escape/): its fragment sets ESCAPE_BINS.  Its probes
# are Linux system calls: built, installed and run on Linux only.
ESCAPE_BINS :=
ifeq ($(MODULE_OS),Linux)
-include t/escape/escape.mk
endif

# The compatibility suite alone (t/compat/run; `check` runs it through
# t/integration/compat-*.sh): COMPAT_PROFILES="default landlock" to narrow.
.PHONY: compat
compat: all
	@STK_BUILD=$(ABS_B) sh t/compat/run $(foreach p,$(COMPAT_PROFILES),--profile $(p))

.PHONY: check portable portable-modules check-browser
TEST_ARTIFACTS := all $(TEST_MODULE_SOS) $(B)/t/unit-tests $(LIB_UNIT_BINS) $(MODULE_UNIT_BINS) $(T_HELPERS) $(ESCAPE_BINS)
check: $(TEST_ARTIFACTS) $(if $(filter 1,$(PORTABLE)),,portable)
	@STK_BUILD=$(ABS_B) STK_PORTABLE_BUILD=$(if $(filter Linux,$(MODULE_OS)),$(ABS_B)-portable) sh t/run-tests.sh

# The CUnit suites alone, hermetic (no namespaces, bwrap or network): what
# a package build runs (debian/rules, the rpm spec's %check).
.PHONY: unit-check
UNIT_BINS := $(B)/t/unit-tests $(LIB_UNIT_BINS) $(MODULE_UNIT_BINS)
unit-check: all $(TEST_MODULE_SOS) $(UNIT_BINS)
	@set -e; for t in $(UNIT_BINS); do echo "== $${t##*/}"; $$t > $$t.out 2>&1 || { cat $$t.out; exit 1; }; \
	    grep -E '^ +tests ' $$t.out; done

# The portable build tree, for t/integration/portable.sh (see CORE_POSIX_ONLY).
portable:
	@$(MAKE) --no-print-directory PORTABLE=1 $(B)-portable/stockade portable-modules
	@ln -sfn $(ABS_B)/t/helpers $(B)-portable/t/helpers # the tests' own tools: no need for a second build
portable-modules: $(MODULE_SOS) $(TEST_MODULE_SOS)

# Renders `stockade compare --html` in headless Chromium and checks the
# screenshot (not part of `check`: it needs a browser, installed from Debian
# when missing and root).
check-browser: all $(B)/t/escape/pngcheck
	@STK_BUILD=$(ABS_B) sh t/escape/check-browser.sh
