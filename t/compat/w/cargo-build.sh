# cargo build of a crate without dependencies (offline)
NEEDS="cargo"
inside() {
cargo new -q --vcs none hello && cd hello && cargo build -q --offline && ./target/debug/hello | grep -q Hello
}
