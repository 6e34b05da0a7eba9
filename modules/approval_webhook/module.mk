approval_webhook_SHARED := modules/common/stk_question_json.c
approval_webhook_LIBS := -ljson-c -lcurl
