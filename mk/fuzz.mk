# `make fuzz`: build the libFuzzer harnesses of the proxy's parsers
# (modules/net_proxy/fuzz/fuzz_*.c) with clang into $(B)/fuzz/ and run each
# for FUZZ_SECONDS, starting from the committed seed corpus
# (modules/net_proxy/fuzz/corpus/<name>/; new inputs go to
# $(B)/fuzz/corpus/<name>/, never into the source tree).
#   make fuzz                         every harness, 30 s each
#   make fuzz FUZZ_SECONDS=300 FUZZ_TARGETS="http tls"
# A crash leaves its input in $(B)/fuzz/ (crash-*) and fails the target.

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 30
FUZZ_DIR     := $(B)/fuzz
FUZZ_SRC     := modules/net_proxy/fuzz
FUZZ_ALL     := $(patsubst $(FUZZ_SRC)/fuzz_%.c,%,$(wildcard $(FUZZ_SRC)/fuzz_*.c)) jsonrpc
FUZZ_TARGETS ?= $(FUZZ_ALL)
# The parsing core only: the module glue needs a host and an event loop.
FUZZ_UNITS   := $(addprefix modules/net_proxy/,np_http.c np_body.c np_reqs.c np_socks.c np_tls.c np_match.c np_addr.c)
FUZZ_CFLAGS  := -std=c11 -D_GNU_SOURCE -g -O1 $(WARN) -Iinclude -Ilib -Imodules/net_proxy \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
# Debian ships libFuzzer's runtime apart from clang.
FUZZ_DEB     := clang libclang-rt-14-dev

# Can clang link a fuzzer here?  If not, install (root) or print the apt
# line (mk/deps.sh), then check again.
$(FUZZ_DIR)/.toolchain-ok:
	@mkdir -p $(@D)
	@printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\nint LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' > $(@D)/probe.c
	@$(FUZZ_CC) -fsanitize=fuzzer -o $(@D)/probe $(@D)/probe.c 2>/dev/null || \
	    { echo "fuzz: $(FUZZ_CC) cannot link a libFuzzer target"; sh mk/deps.sh $(FUZZ_DEB) && \
	      $(FUZZ_CC) -fsanitize=fuzzer -o $(@D)/probe $(@D)/probe.c; }
	@touch $@

$(FUZZ_DIR)/fuzz_%: $(FUZZ_SRC)/fuzz_%.c $(FUZZ_SRC)/fuzz.h $(FUZZ_UNITS) $(wildcard modules/net_proxy/np_*.h) | $(FUZZ_DIR)/.toolchain-ok
	@echo "  FUZZ    $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_UNITS)

# `stockade mcp`'s JSON-RPC parser: its harness and corpus in core/cli/fuzz/.
$(FUZZ_DIR)/fuzz_jsonrpc: core/cli/fuzz/fuzz_jsonrpc.c core/cli/mcp_rpc.c core/cli/mcp_rpc.h | $(FUZZ_DIR)/.toolchain-ok
	@echo "  FUZZ    $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) $(PKG_CFLAGS) -o $@ $(filter %.c,$^) $(PKG_LIBS)

FUZZ_BINS := $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_TARGETS))

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BINS)

fuzz: fuzz-build
	@set -e; for t in $(FUZZ_TARGETS); do \
	    mkdir -p $(FUZZ_DIR)/corpus/$$t; \
	    src=$(FUZZ_SRC); [ $$t = jsonrpc ] && src=core/cli/fuzz; \
	    dict=; [ -f $$src/$$t.dict ] && dict=-dict=$(CURDIR)/$$src/$$t.dict; \
	    echo "== fuzz_$$t for $(FUZZ_SECONDS)s"; \
	    (cd $(FUZZ_DIR) && ./fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	        -max_len=20000 -timeout=10 -rss_limit_mb=2048 $$dict \
	        corpus/$$t $(CURDIR)/$$src/corpus/$$t) > $(FUZZ_DIR)/fuzz_$$t.log 2>&1 || \
	        { tail -n 40 $(FUZZ_DIR)/fuzz_$$t.log; echo "fuzz_$$t FAILED (log: $(FUZZ_DIR)/fuzz_$$t.log)"; exit 1; }; \
	    grep -E '^stat::(number_of_executed_units|new_units_added)|^#[0-9]+.*DONE' $(FUZZ_DIR)/fuzz_$$t.log || true; \
	done
