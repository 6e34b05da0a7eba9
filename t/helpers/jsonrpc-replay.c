/* SPDX-License-Identifier: MIT */
/* make check's run of the JSON-RPC fuzz harness without libFuzzer: each
 * file named on the command line is one input (the committed corpus,
 * t/fuzz/corpus/jsonrpc/, and t/integration/mcp.sh's own).  The
 * harness and the parser are compiled in here whole: a helper is one file
 * (mk/tests.mk), and this keeps them the very code `make fuzz` builds. */
#include "../fuzz/fuzz_jsonrpc.c"
#include "../../core/cli/mcp_rpc.c"

int main(int argc, char **argv)
{
        static uint8_t buf[MCP_MESSAGE_MAX + 1];

        for (int i = 1; i < argc; i++) {
                FILE *f = fopen(argv[i], "rb");
                size_t n;
                if (!f) {
                        perror(argv[i]);
                        return 1;
                }
                n = fread(buf, 1, sizeof(buf), f);
                fclose(f);
                LLVMFuzzerTestOneInput(buf, n);
        }
        printf("%d inputs replayed\n", argc - 1);
        return 0;
}
