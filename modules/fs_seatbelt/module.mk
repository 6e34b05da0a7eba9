# Built everywhere (explain --details shows its profile, its tests run on
# Linux), installed on macOS only: elsewhere it cannot run.
fs_seatbelt_INSTALL_OS := Darwin
