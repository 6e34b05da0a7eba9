# tools/: programs that `stockade` runs for a subcommand, as git runs its
# own: tools/<name>/ becomes $(B)/tools/stockade-<name>, installed to
# $(LIBEXECDIR)/stockade/.  They link the core library; they are not in the
# binary that enforces the sandbox.  compare runs the Linux stacks: Linux
# only.
TOOL_NAMES :=
ifeq ($(MODULE_OS),Linux)
TOOL_NAMES += compare
endif
TOOL_BINS := $(patsubst %,$(B)/tools/stockade-%,$(TOOL_NAMES))
# What `make install` installs: the same, linked without the build tree.
INST_TOOL_BINS := $(patsubst %,$(B)/inst/tools/stockade-%,$(TOOL_NAMES))

$(O)/tools/%.o: tools/%.c $(PATH_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(CORE_CFLAGS) $(PATH_DEFS) -MMD -MP -c -o $@ $<

define tool_rule
$(1)_TOOL_OBJS := $(patsubst %.c,$(O)/%.o,$(wildcard tools/$(1)/*.c))
$(B)/tools/stockade-$(1): $$($(1)_TOOL_OBJS) $(CORE_DEV_O) $(CORE_A) $(LIB_APPROVALS_A) $(LIB_COMMON_A)
	@mkdir -p $$(@D)
	@echo "  LINK    $$@"
	@$$(CC) $$(CORE_CFLAGS) -o $$@ $$($(1)_TOOL_OBJS) $(CORE_DEV_O) $$(EXE_LDFLAGS) $$(CORE_LINK)
$(B)/inst/tools/stockade-$(1): $$($(1)_TOOL_OBJS) $(CORE_INST_O) $(CORE_A) $(LIB_APPROVALS_A) $(LIB_COMMON_A)
	@mkdir -p $$(@D)
	@echo "  LINK    $$@"
	@$$(CC) $$(CORE_CFLAGS) -o $$@ $$($(1)_TOOL_OBJS) $(CORE_INST_O) $$(EXE_LDFLAGS) $$(CORE_LINK)
endef
$(foreach t,$(TOOL_NAMES),$(eval $(call tool_rule,$(t))))

# The comparison stacks of `stockade compare` (etc/compare/): copied into
# the build tree for the build tree's tool, installed to $(DATADIR)/stockade/compare.
COMPARE_STACKS := $(wildcard etc/compare/*.yaml)
COMPARE_STACK_COPIES := $(patsubst etc/compare/%,$(B)/compare/%,$(COMPARE_STACKS))
$(B)/compare/%.yaml: etc/compare/%.yaml
	@mkdir -p $(@D)
	@install -m 0644 $< $@
