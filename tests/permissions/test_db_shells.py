"""Database shells whose scripts run commands, write, load or read files (``bash_db_shells.py``):
under ``Bash(sqlite3:*)``, ``Bash(psql:*)``, ``Bash(duckdb:*)`` or ``Bash(mysql:*)`` —
``sqlite3 x.db ".shell rm -rf y"`` ran past ``Bash(rm:*)`` in deny, ``.output src/x.py`` past
``Edit(./src/**)``, ``readfile('.env')`` past ``Read(./.env)``.  Queries still run.  (The
behaviour follows each shell's documentation; sqlite3's own CLI is run where installed.)"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

RULES = ("Bash(sqlite3:*)", "Bash(duckdb:*)", "Bash(psql:*)", "Bash(mysql:*)")
ROWS = [
    ('sqlite3 x.db ".shell rm -rf y"', "ask"), ('sqlite3 x.db ".system curl evil"', "ask"),
    ('sqlite3 -cmd ".sh rm y" x.db', "ask"), ('sqlite3 x.db ".output src/x.py" "select 1"', "ask"),
    ('sqlite3 x.db ".once |sh"', "ask"), ('sqlite3 x.db ".load /tmp/evil"', "ask"), ('sqlite3 x.db ".read x.sql"', "ask"),
    ("sqlite3 x.db \"select writefile('src/a.py', 'x')\"", "ask"), ("sqlite3 x.db \"VACUUM INTO 'b.db'\"", "ask"),
    ("sqlite3 x.db \"ATTACH 'b.db' AS b\"", "ask"), ('sqlite3 x.db ".import .env t"', "ask"),
    ("sqlite3 x.db \"select readfile('.env')\"", "ask"), ("sqlite3 x.db < script.sql", "ask"),
    ('duckdb -c ".shell rm -rf y"', "ask"), ("duckdb -c \"COPY (select 1) TO 'src/x.csv'\"", "ask"),
    ("duckdb -c \"select * from read_csv('.env')\"", "ask"), ("duckdb -c \"select * from '.env'\"", "ask"),
    ("psql -c '\\! rm -rf y'", "ask"), ("psql -c \"COPY t TO PROGRAM 'sh'\"", "ask"), ("psql -f script.sql", "ask"),
    ("psql -c '\\o src/x'", "ask"), ("mysql -e 'system rm -rf y'", "ask"), ("mysql -e '\\! rm -rf y'", "ask"),
    ("mysql -e \"select 1 into outfile 'src/x'\"", "ask"), ("mysql db < dump.sql", "ask"),
    ('sqlite3 x.db "select * from t"', "allow"), ("sqlite3 x.db .tables", "allow"), ("sqlite3 x.db .schema", "allow"),
    ('sqlite3 -header -csv x.db "select * from t limit 5"', "allow"), ('duckdb -c "select 42"', "allow"),
    ('psql -c "select count(*) from users"', "allow"), ("mysql -e 'show tables' db", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
@pytest.mark.parametrize("mode", ["default", "bypassPermissions"])
async def test_database_shell_scripts(world, command, expected, mode):
    ctx = make_ctx(world.project, allow=RULES, deny=("Bash(rm:*)", "Read(./.env)", "Edit(./src/**)"), mode=mode)
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


async def test_reads_ask_only_with_read_deny_rules(world):
    ctx = make_ctx(world.project, allow=RULES)
    assert verdict_name(await decide_bash(ctx, 'sqlite3 x.db ".import --csv data.csv t"')) == "allow"
    assert verdict_name(await decide_bash(ctx, "duckdb -c \"select * from 'data.csv'\"")) == "allow"
    assert verdict_name(await decide_bash(ctx, 'sqlite3 x.db ".shell ls"')) == "ask"


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="the sqlite3 shell is not installed")
def test_real_sqlite3_runs_shell_commands(tmp_path):
    subprocess.run(["sqlite3", "x.db", ".shell touch RAN"], cwd=tmp_path, capture_output=True, timeout=30)
    assert (tmp_path / "RAN").exists()
