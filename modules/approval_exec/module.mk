approval_exec_SHARED := modules/common/stk_question_json.c
approval_exec_LIBS := -ljson-c
