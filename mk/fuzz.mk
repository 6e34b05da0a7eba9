# `make fuzz`: build the libFuzzer harnesses of the proxy's parsers
# (modules/net_proxy/fuzz/fuzz_*.c), of perm_rules' shell parser
# (modules/perm_rules/fuzz/fuzz_pr_*.c) and of the core's (t/fuzz/fuzz_*.c:
# git's config format, TOML) with clang into $(B)/fuzz/ and run each
# for FUZZ_SECONDS, starting from the committed seed corpus
# (<harness dir>/corpus/<name>/; new inputs go to
# $(B)/fuzz/corpus/<name>/, never into the source tree).
#   make fuzz                         every harness, 30 s each
#   make fuzz FUZZ_SECONDS=300 FUZZ_TARGETS="http tls"
# A crash leaves its input in $(B)/fuzz/ (crash-*) and fails the target.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZ_DIR     := $(B)/fuzz
FUZZ_SRC     := modules/net_proxy/fuzz
FUZZ_CORE_SRC := t/fuzz
FUZZ_CORE    := $(patsubst $(FUZZ_CORE_SRC)/fuzz_%.c,%,$(wildcard $(FUZZ_CORE_SRC)/fuzz_*.c))
# perm_rules' shell lexer, parser and expander.
PR_FUZZ_SRC  := modules/perm_rules/fuzz
FUZZ_PR      := $(patsubst $(PR_FUZZ_SRC)/fuzz_%.c,%,$(wildcard $(PR_FUZZ_SRC)/fuzz_*.c))
FUZZ_ALL     := $(patsubst $(FUZZ_SRC)/fuzz_%.c,%,$(wildcard $(FUZZ_SRC)/fuzz_*.c)) $(FUZZ_CORE) $(FUZZ_PR)
FUZZ_TARGETS ?= $(FUZZ_ALL)
# The parsing core only: the module glue needs a host and an event loop.
FUZZ_UNITS   := $(addprefix modules/net_proxy/,np_http.c np_body.c np_reqs.c np_socks.c np_tls.c np_match.c np_addr.c)
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) -Iinclude -Ilib -Imodules/net_proxy \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
# The core's harnesses: the pure parsing files of core/policy and what they use.
FUZZ_CORE_UNITS := core/policy/gitconfig_parse.c core/policy/gitconfig_keys.c core/cli/toml.c lib/common/stk_buf.c
FUZZ_CORE_CFLAGS := $(subst -Imodules/net_proxy,-Icore -I$(FUZZ_SRC),$(FUZZ_CFLAGS))
FUZZ_CORE_LIBS  := -ljson-c -lm   # toml.c builds json-c trees
# Debian ships libFuzzer's runtime apart from clang.
FUZZ_DEB     := clang libclang-rt-14-dev

# Can clang link a fuzzer here?  If not, install (root) or print the apt
# line (mk/deps.sh), then check again.
$(FUZZ_DIR)/.toolchain-ok:
	@mkdir -p $(@D)
	@printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > $(@D)/probe.c
	@$(FUZZ_CC) -fsanitize=fuzzer -o $(@D)/probe $(@D)/probe.c 2>/dev/null || \
	    { echo "fuzz: $(FUZZ_CC) cannot link a libFuzzer target"; sh mk/deps.sh install-raw $(FUZZ_DEB) && \
	      $(FUZZ_CC) -fsanitize=fuzzer -o $(@D)/probe $(@D)/probe.c; }
	@touch $@

$(FUZZ_DIR)/fuzz_%: $(FUZZ_SRC)/fuzz_%.c $(FUZZ_SRC)/fuzz.h $(FUZZ_UNITS) $(wildcard modules/net_proxy/np_*.h) | $(FUZZ_DIR)/.toolchain-ok
	@echo "  FUZZ    $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_UNITS)

# `stockade mcp`'s JSON-RPC parser (t/fuzz/fuzz_jsonrpc.c): its own units
# (an explicit rule, before the core's pattern one).
$(FUZZ_DIR)/fuzz_jsonrpc: t/fuzz/fuzz_jsonrpc.c core/cli/mcp_rpc.c core/cli/mcp_rpc.h | $(FUZZ_DIR)/.toolchain-ok
	@echo "  FUZZ    $@"
	@$(FUZZ_CC) $(FUZZ_CORE_CFLAGS) $(PKG_CFLAGS) -o $@ $(filter %.c,$^) $(PKG_LIBS)

$(FUZZ_DIR)/fuzz_%: $(FUZZ_CORE_SRC)/fuzz_%.c $(FUZZ_SRC)/fuzz.h $(FUZZ_CORE_UNITS) core/policy/gitconfig.h core/cli/toml.h | $(FUZZ_DIR)/.toolchain-ok
	@echo "  FUZZ    $@"
	@$(FUZZ_CC) $(FUZZ_CORE_CFLAGS) -o $@ $< $(FUZZ_CORE_UNITS) $(FUZZ_CORE_LIBS)

# Everything of perm_rules but the module glue (it needs a host).
PR_FUZZ_UNITS := $(filter-out modules/perm_rules/perm_rules.c,$(wildcard modules/perm_rules/*.c)) lib/common/stk_buf.c
$(FUZZ_DIR)/fuzz_pr_%: $(PR_FUZZ_SRC)/fuzz_pr_%.c $(PR_FUZZ_UNITS) $(wildcard modules/perm_rules/*.h) | $(FUZZ_DIR)/.toolchain-ok
	@echo "  FUZZ    $@"
	@$(FUZZ_CC) $(subst -Imodules/net_proxy,-Imodules/perm_rules,$(FUZZ_CFLAGS)) -o $@ $< $(PR_FUZZ_UNITS)

FUZZ_BINS := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_TARGETS))

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(FUZZ_DIR)/corpus/$$t; \
	    src=$(FUZZ_SRC); case " $(FUZZ_CORE) " in *" $$t "*) src=$(FUZZ_CORE_SRC) ;; esac; \
	    case $$t in pr_*) src=$(PR_FUZZ_SRC) ;; esac; \
	    dict=; [ -f $$src/$$t.dict ] && dict=-dict=$(CURDIR)/$$src/$$t.dict; \
	    echo "== fuzz_$$t for $(FUZZ_SECONDS)s"; \
	    (cd $(FUZZ_DIR) && ./fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	        -max_len=20000 -timeout=10 -rss_limit_mb=2048 $$dict \
	        corpus/$$t $(CURDIR)/$$src/corpus/$$t) > $(FUZZ_DIR)/fuzz_$$t.log 2>&1 || \
	        { tail -n 40 $(FUZZ_DIR)/fuzz_$$t.log; echo "fuzz_$$t FAILED (log: $(FUZZ_DIR)/fuzz_$$t.log)"; exit 1; }; \
	    grep -E '^stat::(number_of_executed_units|new_units_added)|^#[0-9]+.*DONE' $(FUZZ_DIR)/fuzz_$$t.log || true; \
	done
