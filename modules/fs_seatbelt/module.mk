fs_seatbelt_SHARED := modules/common/stk_remove_tree.c modules/common/stk_path.c
