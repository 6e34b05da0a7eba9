# make install / uninstall.  PREFIX DESTDIR BINDIR LIBDIR LIBEXECDIR
# SYSCONFDIR DATADIR MANDIR INCLUDEDIR PKGCONFIGDIR BASHCOMPDIR ZSHCOMPDIR
# FISHCOMPDIR.
#
# One list, INSTALLS, says what is installed: words MODE:SOURCE:TARGET
# (TARGET without DESTDIR).  `install` copies each, `uninstall` removes
# each and then the directories of INSTALL_DIRS that are left empty, so
# that it removes exactly what `install` put there and nothing a site
# added (its own modules in MODULEDIR, its files in SYSCONFDIR/stockade).
# Nothing is installed into SYSCONFDIR: the shipped profiles are embedded
# in the binary, and SYSCONFDIR/stockade holds the site's own files.
#
# To install something more, add one word a line:
#   INSTALLS += 0644:path/in/tree:$(DATADIR)/stockade/file

# The modules installed here: those built, less those whose module.mk
# sets <name>_INSTALL_OS to another system (fs_seatbelt is built on Linux
# for its tests and `explain`, but runs on macOS only); their pages too.
INSTALLED_MODULES := $(foreach m,$(MODULES),$(if $(or $(if $($(m)_INSTALL_OS),,y),$(filter $(UNAME_S),$($(m)_INSTALL_OS))),$(m)))
MAN_SRCS := $(wildcard man/*.[1-8]) $(foreach m,$(INSTALLED_MODULES),$(wildcard modules/$(m)/*.[1-8]))
MAN_OUT := $(patsubst %,$(B)/man/%,$(notdir $(MAN_SRCS)))

# Shell completions go where bash-completion, zsh and fish look for a
# package's own (Debian's and Fedora's vendor directories).
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR  ?= $(DATADIR)/zsh/vendor-completions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d

INSTALLS :=
INSTALLS += 0755:$(B)/inst/stockade:$(BINDIR)/stockade
INSTALLS += $(foreach m,$(INSTALLED_MODULES),0644:$(B)/modules/$(m).$(SOEXT):$(MODULEDIR)/$(m).$(SOEXT))
INSTALLS += 0644:include/stockade/module.h:$(INCLUDEDIR)/stockade/module.h
INSTALLS += 0644:$(B)/stockade-module.pc:$(PKGCONFIGDIR)/stockade-module.pc
INSTALLS += $(foreach p,$(MAN_OUT),0644:$(p):$(MANDIR)/man$(subst .,,$(suffix $(p)))/$(notdir $(p)))
INSTALLS += 0644:completions/stockade.bash:$(BASHCOMPDIR)/stockade
INSTALLS += 0644:completions/_stockade:$(ZSHCOMPDIR)/_stockade
INSTALLS += 0644:completions/stockade.fish:$(FISHCOMPDIR)/stockade.fish
INSTALLS += $(foreach t,$(INST_TOOL_BINS),0755:$(t):$(LIBEXECDIR)/stockade/$(notdir $(t)))
ifneq ($(ESCAPE_BINS),)
INSTALLS += 0755:$(B)/t/escape/run:$(LIBEXECDIR)/stockade/escape/run
INSTALLS += 0755:$(B)/t/escape/escape-fixture:$(LIBEXECDIR)/stockade/escape/escape-fixture
INSTALLS += $(foreach p,$(ESCAPE_PROBES),0755:$(p):$(LIBEXECDIR)/stockade/escape/probes/$(notdir $(p)))
INSTALLS += $(foreach s,$(COMPARE_STACKS),0644:$(s):$(DATADIR)/stockade/compare/$(notdir $(s)))
endif

# The directories that are stockade's own, deepest first: removed by
# uninstall when empty (MODULEDIR keeps a site's modules, and then stays).
INSTALL_DIRS := $(LIBEXECDIR)/stockade/escape/probes $(LIBEXECDIR)/stockade/escape \
                $(LIBEXECDIR)/stockade $(MODULEDIR) $(INCLUDEDIR)/stockade \
                $(DATADIR)/stockade/compare $(DATADIR)/stockade

INSTALL_SOURCES := $(foreach e,$(INSTALLS),$(word 2,$(subst :, ,$(e))))
# The shell entry's names (stockade-sh(1)): links to stockade, an agent's SHELL points at one.
SHELL_LINKS := stockade-sh stockade-bash

$(B)/stockade-module.pc: mk/stockade-module.pc.in $(PATH_STAMP)
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@MODULEDIR@|$(MODULEDIR)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' -e 's|@SOEXT@|$(SOEXT)|g' $< > $@

# The man pages as installed: the directories this build was configured
# with in place of $(sysconfdir) & co., and the date of SOURCE_DATE_EPOCH
# (reproducible builds; unset, the date of the newest NEWS entry) and this
# version in the title line.
MAN_DATE = $(if $(SOURCE_DATE_EPOCH),$(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%d 2>/dev/null || \
                date -u -r $(SOURCE_DATE_EPOCH) +%Y-%m-%d),$(shell sed -n '1s/.*(\([0-9-]*\)).*/\1/p' NEWS))
MAN_SED = -e 's|$$(sysconfdir)|$(SYSCONFDIR)|g' -e 's|$$(libexecdir)|$(LIBEXECDIR)|g' \
          -e 's|$$(datadir)|$(DATADIR)|g' -e 's|$$(moduledir)|$(MODULEDIR)|g' \
          -e 's|$$(bindir)|$(BINDIR)|g' \
          -e '/^\.TH /s|^\(\.TH [^ ]* [^ ]*\) [^ ]* "stockade [^"]*"|\1 $(MAN_DATE) "stockade $(VERSION)"|'
define man_rule
$(B)/man/$(notdir $(1)): $(1) $(PATH_STAMP) NEWS
	@mkdir -p $$(@D)
	@sed $$(MAN_SED) $(1) > $$@
endef
$(foreach p,$(MAN_SRCS),$(eval $(call man_rule,$(p))))
.PHONY: man
man: $(MAN_OUT)

.PHONY: install uninstall
install: $(INSTALL_SOURCES)
	@set -e; for e in $(INSTALLS); do \
	    mode=$${e%%:*}; rest=$${e#*:}; src=$${rest%%:*}; dst=$(DESTDIR)$${rest#*:}; \
	    install -d "$${dst%/*}"; install -m "$$mode" "$$src" "$$dst"; echo "  INSTALL $$dst"; \
	done
	@for l in $(SHELL_LINKS); do ln -sf stockade $(DESTDIR)$(BINDIR)/$$l && echo "  LINK    $(DESTDIR)$(BINDIR)/$$l"; done

uninstall:
	@for l in $(SHELL_LINKS); do [ -L $(DESTDIR)$(BINDIR)/$$l ] && rm -f $(DESTDIR)$(BINDIR)/$$l && echo "  REMOVE  $(DESTDIR)$(BINDIR)/$$l"; done; true
	@for e in $(INSTALLS); do dst=$(DESTDIR)$${e#*:*:}; \
	    if [ -e "$$dst" ] || [ -L "$$dst" ]; then rm -f "$$dst" && echo "  REMOVE  $$dst"; fi; \
	done
	@for d in $(INSTALL_DIRS); do [ -d "$(DESTDIR)$$d" ] && rmdir "$(DESTDIR)$$d" 2>/dev/null || true; done

# Packaging as distributions build it (mk/distcheck.sh): debian/ with
# lintian and its autopkgtests, the rpm spec.  Not part of `make check` or .ci/run.
.PHONY: distcheck
distcheck:
	@sh mk/distcheck.sh
