/* SPDX-License-Identifier: MIT */
/* Test-only: a shared object with no stockade_module symbol; refused. */
int t_nosymbol_placeholder(void);
int t_nosymbol_placeholder(void) { return 0; }
