approval_webhook_USES := approvals
approval_webhook_LIBS := -ljson-c -ldl
