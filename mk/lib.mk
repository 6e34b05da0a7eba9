# lib/: static, position-independent helper libraries, internal (never
# installed).  lib/common is linked into the core, the tools and every
# module; lib/approvals (the remembered-approvals store and the question
# JSON) into `stockade approvals` and the approval modules.  A module
# links them statically and exports its descriptor alone (mk/module.map),
# so nothing of lib/ leaks into its ABI.
LIB_NAMES := common approvals $(if $(filter Linux,$(MODULE_OS)),seccomp)
LIB_common_SRCS := $(wildcard lib/common/*.c)
LIB_approvals_SRCS := $(wildcard lib/approvals/*.c)
LIB_seccomp_SRCS := $(wildcard lib/seccomp/*.c)
LIB_ARCHIVES := $(foreach l,$(LIB_NAMES),$(B)/lib/libstk-$(l).a)

$(O)/lib/%.o: lib/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(LIB_CFLAGS) -MMD -MP -c -o $@ $<

define lib_rule
$(B)/lib/libstk-$(1).a: $(patsubst lib/%.c,$(O)/lib/%.o,$(LIB_$(1)_SRCS))
	@mkdir -p $$(@D)
	@echo "  AR      $$@"
	@rm -f $$@ && $(AR) rcs $$@ $$^
endef
$(foreach l,$(LIB_NAMES),$(eval $(call lib_rule,$(l))))

# What links lib/approvals links lib/common after it.
LIB_COMMON_A := $(B)/lib/libstk-common.a
LIB_APPROVALS_A := $(B)/lib/libstk-approvals.a
