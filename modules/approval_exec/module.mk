# signalfd, sigtimedwait and close_range: not ported yet (core/os/os.h).
approval_exec_OS := Linux
# the question and answer JSON (lib/approvals/stk_question_json.h)
approval_exec_USES := approvals
approval_exec_LIBS := -ljson-c
