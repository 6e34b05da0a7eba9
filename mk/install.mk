# make install / uninstall.  PREFIX DESTDIR BINDIR LIBDIR LIBEXECDIR
# SYSCONFDIR MANDIR INCLUDEDIR PKGCONFIGDIR.
# Shell completions go where bash-completion, zsh and fish look for a
# package's own (Debian's and Fedora's vendor directories).
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR  ?= $(DATADIR)/zsh/vendor-completions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
MANPAGES := $(wildcard man/*.[1-8]) $(wildcard modules/*/*.[1-8])
INSTALLED_MODULES := $(MODULE_SOS)
# The shell entry's names (stockade-sh(1)): an agent's SHELL points at one.
SHELL_LINKS := stockade-sh stockade-bash

$(B)/stockade-module.pc: mk/stockade-module.pc.in $(PATH_STAMP)
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@MODULEDIR@|$(MODULEDIR)|g' \
	    -e 's|@VERSION@|$(VERSION)|g' -e 's|@SOEXT@|$(SOEXT)|g' $< > $@

.PHONY: install uninstall
install: all $(B)/stockade-module.pc
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MODULEDIR) $(DESTDIR)$(SYSCONFDIR)/stockade \
	    $(DESTDIR)$(INCLUDEDIR)/stockade $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0755 $(B)/stockade $(DESTDIR)$(BINDIR)/stockade
	for l in $(SHELL_LINKS); do ln -sf stockade $(DESTDIR)$(BINDIR)/$$l; done
	for m in $(INSTALLED_MODULES); do install -m 0644 $$m $(DESTDIR)$(MODULEDIR)/; done
	for p in $(PROFILES); do install -m 0644 $$p $(DESTDIR)$(SYSCONFDIR)/stockade/; done
	install -m 0644 include/stockade/module.h $(DESTDIR)$(INCLUDEDIR)/stockade/module.h
	install -m 0644 $(B)/stockade-module.pc $(DESTDIR)$(PKGCONFIGDIR)/stockade-module.pc
	for m in $(MANPAGES); do s=$${m##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s; \
	    install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0644 completions/stockade.bash $(DESTDIR)$(BASHCOMPDIR)/stockade
	install -m 0644 completions/_stockade $(DESTDIR)$(ZSHCOMPDIR)/_stockade
	install -m 0644 completions/stockade.fish $(DESTDIR)$(FISHCOMPDIR)/stockade.fish
ifneq ($(TOOL_BINS),)
	install -d $(DESTDIR)$(LIBEXECDIR)/stockade
	install -m 0755 $(TOOL_BINS) $(DESTDIR)$(LIBEXECDIR)/stockade/
endif
ifneq ($(ESCAPE_BINS),)
	install -d $(DESTDIR)$(LIBEXECDIR)/stockade/escape/probes $(DESTDIR)$(SYSCONFDIR)/stockade/compare
	install -m 0755 $(B)/t/escape/run $(B)/t/escape/escape-fixture $(DESTDIR)$(LIBEXECDIR)/stockade/escape/
	install -m 0755 $(ESCAPE_PROBES) $(DESTDIR)$(LIBEXECDIR)/stockade/escape/probes/
	install -m 0644 $(COMPARE_STACKS) $(DESTDIR)$(SYSCONFDIR)/stockade/compare/
endif

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(SHELL_LINKS))
	rm -f $(DESTDIR)$(BINDIR)/stockade $(DESTDIR)$(INCLUDEDIR)/stockade/module.h \
	    $(DESTDIR)$(PKGCONFIGDIR)/stockade-module.pc
	rm -f $(patsubst $(B)/tools/%,$(DESTDIR)$(LIBEXECDIR)/stockade/%,$(TOOL_BINS))
	rm -rf $(DESTDIR)$(MODULEDIR) $(DESTDIR)$(LIBEXECDIR)/stockade/escape
	for m in $(MANPAGES); do s=$${m##*.}; rm -f $(DESTDIR)$(MANDIR)/man$$s/$$(basename $$m); done
	rm -f $(DESTDIR)$(BASHCOMPDIR)/stockade $(DESTDIR)$(ZSHCOMPDIR)/_stockade $(DESTDIR)$(FISHCOMPDIR)/stockade.fish
