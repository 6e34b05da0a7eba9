# fs_bwrap hashes the bwrap binary for its bwrap_sha256 pin (OpenSSL EVP).
fs_bwrap_LIBS := -lcrypto
fs_bwrap_OS := Linux
