# signalfd, sigtimedwait and close_range: not ported yet (os.h).
approval_exec_OS := Linux
approval_exec_SHARED := modules/common/stk_question_json.c
approval_exec_LIBS := -ljson-c
