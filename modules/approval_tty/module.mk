# The state-file format has one implementation, shared with `stockade approvals`
# (the core links the same two sources); stk_path for "beneath a writable root".
approval_tty_SHARED := modules/common/stk_approvals.c modules/common/stk_approvals_store.c modules/common/stk_path.c
