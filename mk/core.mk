# core/: one folder a layer (docs/ARCHITECTURE.md gives the layers and what
# each may include; t/integration/layers.sh checks it).  util, os, policy
# and run form libstockade-core.a, an internal static library that the
# stockade binary and the tools link; cli and doctor are the binary's own.
CORE_LINUX_ONLY := core/os/os_linux.c core/os/seccomp_linux.c core/os/loop_epoll.c core/doctor/doctor_kernel.c \
                   core/doctor/doctor_ns.c core/cli/serve.c
CORE_POSIX_ONLY := core/os/os_posix.c core/os/loop_poll.c core/doctor/doctor_posix.c core/cli/serve_posix.c
ifeq ($(MODULE_OS),Linux)
CORE_OS_OUT := $(CORE_POSIX_ONLY)
else
CORE_OS_OUT := $(CORE_LINUX_ONLY)
endif
# core/util/build_tree.c is compiled twice, outside the library (below).
CORE_TWICE := core/util/build_tree.c
CORE_LIB_SRCS := $(filter-out $(CORE_OS_OUT) $(CORE_TWICE),$(wildcard core/util/*.c core/os/*.c core/policy/*.c core/run/*.c))
CORE_BIN_SRCS := $(filter-out $(CORE_OS_OUT),$(wildcard core/cli/*.c core/doctor/*.c))
CORE_LIB_OBJS := $(patsubst %.c,$(O)/%.o,$(CORE_LIB_SRCS)) $(O)/gen/profiles.o
CORE_BIN_OBJS := $(patsubst %.c,$(O)/%.o,$(CORE_BIN_SRCS))
CORE_A := $(B)/lib/libstockade-core.a
# The link line of a program on the core: which build tree it trusts
# (CORE_DEV_O, CORE_INST_O), the core, then lib/ in order.
CORE_LINK := $(CORE_A) $(LIB_APPROVALS_A) $(LIB_COMMON_A) $(PKG_LIBS) -ldl

# The development build (the programs in $(B)) trusts this build tree; the
# programs `make install` installs ($(B)/inst/) have no build-tree path in
# them and trust only the installed directories.
CORE_DEV_O := $(O)/dev/build_tree.o
CORE_INST_O := $(O)/inst/build_tree.o
$(CORE_DEV_O): core/util/build_tree.c $(PATH_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC      $< (development)"
	@$(CC) $(CORE_CFLAGS) $(PATH_DEFS) $(DEV_DEFS) -MMD -MP -c -o $@ $<
$(CORE_INST_O): core/util/build_tree.c $(PATH_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC      $< (installed)"
	@$(CC) $(CORE_CFLAGS) $(PATH_DEFS) -MMD -MP -c -o $@ $<

# The paths compiled in: objects rebuild when PREFIX & co. change.
PATH_STAMP := $(B)/.paths
$(shell mkdir -p $(B); echo '$(PATH_DEFS)' | cmp -s - $(PATH_STAMP) || echo '$(PATH_DEFS)' > $(PATH_STAMP))

$(O)/core/%.o: core/%.c $(PATH_STAMP) | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	@$(CC) $(CORE_CFLAGS) $(PATH_DEFS) -MMD -MP -c -o $@ $<

# Not Linux: the profiles whose stack is Linux's get etc/darwin.stack
# instead, in copies under $(B)/gen/etc/ (embedded and installed).
PROFILES_WITH_LINUX_STACK := etc/default.yaml etc/read-only.yaml
ifeq ($(MODULE_OS),Linux)
PROFILES := $(wildcard etc/*.yaml)
else
PROFILES := $(filter-out $(PROFILES_WITH_LINUX_STACK),$(wildcard etc/*.yaml)) \
            $(patsubst etc/%,$(B)/gen/etc/%,$(PROFILES_WITH_LINUX_STACK))
$(B)/gen/etc/%.yaml: etc/%.yaml etc/darwin.stack
	@mkdir -p $(@D)
	@{ sed '/^stack:/,$$d' $< && cat etc/darwin.stack; } > $@
endif
$(B)/gen/profiles.c: $(PROFILES) mk/embed.sh
	@mkdir -p $(@D)
	@sh mk/embed.sh $(PROFILES) > $@

$(O)/gen/profiles.o: $(B)/gen/profiles.c
	@mkdir -p $(@D)
	@$(CC) $(CORE_CFLAGS) -c -o $@ $<

$(CORE_A): $(CORE_LIB_OBJS)
	@mkdir -p $(@D)
	@echo "  AR      $@"
	@rm -f $@ && $(AR) rcs $@ $^

$(B)/stockade: $(CORE_BIN_OBJS) $(CORE_DEV_O) $(CORE_A) $(LIB_APPROVALS_A) $(LIB_COMMON_A)
	@echo "  LINK    $@"
	@$(CC) $(CORE_CFLAGS) -o $@ $(CORE_BIN_OBJS) $(CORE_DEV_O) $(EXE_LDFLAGS) $(CORE_LINK)
$(B)/inst/stockade: $(CORE_BIN_OBJS) $(CORE_INST_O) $(CORE_A) $(LIB_APPROVALS_A) $(LIB_COMMON_A)
	@mkdir -p $(@D)
	@echo "  LINK    $@"
	@$(CC) $(CORE_CFLAGS) -o $@ $(CORE_BIN_OBJS) $(CORE_INST_O) $(EXE_LDFLAGS) $(CORE_LINK)
