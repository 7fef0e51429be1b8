#!/bin/sh
# SQLite with a file database: Debian's sqlite3 (dynamically linked) runs a
# script of creates, a transaction of 2000 inserts, an index, updates,
# deletes, an integrity check and a vacuum, once natively and once under
# tracegen with --allow-write on its own directory, in each journal mode
# (WAL maps its -shm index shared and writable). The printed results are
# equal, the two database files hold the same content (compared by the
# host's sqlite3 .dump), and the trace replays.
set -u
BIN=${CGM_BIN:-bin}
ROOT=$(pwd)
if ! command -v sqlite3 >/dev/null; then
    echo "x86_sqlite: sqlite3 not installed: FAIL"
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/body.sql" <<'SQL'
CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, v REAL);
BEGIN;
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000)
  INSERT INTO t(name, v) SELECT 'n' || x, x * 1.5 FROM c;
COMMIT;
CREATE INDEX tv ON t(v);
SELECT count(*), sum(v), min(name), max(name) FROM t;
UPDATE t SET v = v * 2 WHERE id % 3 = 0;
DELETE FROM t WHERE id % 7 = 0;
SELECT count(*), sum(v) FROM t;
PRAGMA integrity_check;
VACUUM;
SELECT name FROM t WHERE v > 5990 ORDER BY v LIMIT 3;
SQL
fail=0
for mode in delete truncate persist wal; do
    mkdir -p "$tmp/n-$mode" "$tmp/e-$mode"
    { echo "PRAGMA journal_mode=$mode;"; cat "$tmp/body.sql"; } >"$tmp/$mode.sql"
    env -i sqlite3 "$tmp/n-$mode/db" <"$tmp/$mode.sql" >"$tmp/native" 2>&1
    ns=$?
    env -i "$BIN/tracegen" --quiet --allow-write "$tmp/e-$mode" -o "$tmp/$mode.cgt" -- \
        /usr/bin/sqlite3 "$tmp/e-$mode/db" <"$tmp/$mode.sql" >"$tmp/emu" 2>&1
    es=$?
    what=""
    [ "$ns" = "$es" ] || what="$what status $ns/$es;"
    cmp -s "$tmp/native" "$tmp/emu" || what="$what output differs;"
    grep -q '^ok$' "$tmp/native" || what="$what no integrity_check result;"
    sqlite3 "$tmp/n-$mode/db" .dump >"$tmp/n.dump" 2>&1
    sqlite3 "$tmp/e-$mode/db" .dump >"$tmp/e.dump" 2>&1
    cmp -s "$tmp/n.dump" "$tmp/e.dump" || what="$what database contents differ;"
    "$BIN/replay" -q -c "$ROOT/traces/configs/small.ini" -o "$tmp/stats.json" "$tmp/$mode.cgt" \
        >/dev/null 2>&1 || what="$what replay failed;"
    if [ -n "$what" ]; then
        echo "x86_sqlite journal_mode=$mode: FAIL:$what $(head -c 300 "$tmp/emu")"
        fail=$((fail + 1))
    else
        echo "x86_sqlite journal_mode=$mode: ok ($(wc -l <"$tmp/n.dump") lines of dump)"
    fi
done
echo "x86_sqlite: $fail failed"
[ "$fail" -eq 0 ]
