# a UTF-8 locale
NEEDS="locale"
inside() {
test "$(printf 'h\303\251' | wc -m)" = 2 && locale >/dev/null
}
