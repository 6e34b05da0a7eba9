# perm_rules: json-c for its audit records (the core links it too).
perm_rules_LIBS := -ljson-c
