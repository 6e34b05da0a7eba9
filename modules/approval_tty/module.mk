# The state-file format has one implementation, shared with `stockade
# approvals` (lib/approvals).
approval_tty_USES := approvals
