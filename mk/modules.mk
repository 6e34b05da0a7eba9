# modules/<name>/: one module each, a shared object exporting its
# descriptor alone.  An optional modules/<name>/module.mk sets
#   <name>_LIBS   system libraries it links (-lseccomp),
#   <name>_USES   lib/ libraries beyond lib/common (approvals),
#   <name>_OS     the one `uname -s` it builds on (Linux).
# Each source is its own object, with its header dependencies (-MMD -MP),
# compiled against the SDK and lib/ only (LIB_CFLAGS).
MODULE_DIRS := $(patsubst modules/%/,%,$(wildcard modules/*/))
-include $(wildcard modules/*/module.mk)
MODULES := $(foreach m,$(MODULE_DIRS),$(if $(or $(if $($(m)_OS),,y),$(filter $(MODULE_OS),$($(m)_OS))),$(m)))
MODULE_SOS := $(patsubst %,$(B)/modules/%.$(SOEXT),$(MODULES))

$(O)/modules/%.o: modules/%.c | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(LIB_CFLAGS) -MMD -MP -c -o $@ $<

# module_libs NAME: the lib/ archives it links, lib/common last.
module_libs = $(foreach l,$($(1)_USES),$(B)/lib/libstk-$(l).a) $(LIB_COMMON_A)

define module_rule
$(1)_OBJS := $(patsubst modules/%.c,$(O)/modules/%.o,$(wildcard modules/$(1)/*.c))
$(B)/modules/$(1).$(SOEXT): $$($(1)_OBJS) $(call module_libs,$(1)) mk/module.map
	@mkdir -p $$(@D)
	@echo "  MODULE  $$@"
	@$$(CC) $$(LIB_CFLAGS) $$(SHARED) -o $$@ $$($(1)_OBJS) $(call module_libs,$(1)) $$(EXPORTS) $$(ALL_LDFLAGS) $$($(1)_LIBS)
endef
$(foreach m,$(MODULES),$(eval $(call module_rule,$(m))))
