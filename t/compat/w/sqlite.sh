# sqlite3 creates and queries a database
NEEDS="sqlite3"
inside() {
sqlite3 db.sqlite 'create table t(x); insert into t values (42);' && test "$(sqlite3 db.sqlite 'select x from t')" = 42
}
