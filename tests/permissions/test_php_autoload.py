"""PHP classes Composer's autoloader loads (``code_imports.py``): ``use App\\Jobs\\Clean;`` then
``Clean::run()`` loads ``src/Jobs/Clean.php`` through ``composer.json``'s PSR-4 map, and its
strings count as the script's.  Under ``Bash(rm:*)`` denied, such a class's ``exec("rm -rf
build")`` asks; before, the "ask" rows ran unasked.  The ground truth: real PHP with the
autoloader real Composer writes lists the files it included (``get_included_files``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from jupyter_agent.permissions.code_imports import loaded_files

from .conftest import verdict_name
from .tools import decide_bash, make_ctx, write_files

_RULES = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)",)}
COMPOSER = json.dumps({"name": "acme/app", "autoload": {"psr-4": {"App\\": "src/", "App\\Special\\": "special/"},
                                                        "files": ["src/helpers.php"]},
                       "autoload-dev": {"psr-4": {"Tests\\": ["tests/", "more-tests/"]}}})
WIPE = '<?php\nnamespace {ns};\n\nclass {name}\n{{\n    public static function run() {{ exec("rm -rf build"); }}\n}}\n'
CALM = '<?php\nnamespace {ns};\n\nclass {name}\n{{\n    public static function run() {{ echo "to rm use rm"; }}\n}}\n'

FILES = {
    "composer.json": COMPOSER,
    "src/helpers.php": "<?php\nfunction helper() { return 1; }\n",
    "src/Jobs/Clean.php": WIPE.format(ns="App\\Jobs", name="Clean"),
    "src/Jobs/Calm.php": CALM.format(ns="App\\Jobs", name="Calm"),
    "src/Jobs/Runner.php": "<?php\nnamespace App\\Jobs;\n\nclass Runner\n{\n    public function go() { Clean::run(); }\n}\n",
    "special/Thing.php": WIPE.format(ns="App\\Special", name="Thing"),
    "more-tests/CleanTest.php": WIPE.format(ns="Tests", name="CleanTest"),
    "use.php": "<?php\nrequire __DIR__ . '/vendor/autoload.php';\nuse App\\Jobs\\Clean;\nClean::run();\n",
    "qualified.php": "<?php\nrequire 'vendor/autoload.php';\n\\App\\Jobs\\Clean::run();\n",
    "group.php": "<?php\nuse App\\Jobs\\{Calm, Clean as Wipe};\nWipe::run();\n",
    "same_ns.php": "<?php\nnamespace App\\Jobs;\n(new Runner())->go();\n",
    "longest.php": "<?php\nuse App\\Special\\Thing;\nThing::run();\n",
    "dev.php": "<?php\nuse Tests\\CleanTest;\nCleanTest::run();\n",
    "calm.php": "<?php\nuse App\\Jobs\\Calm;\nCalm::run();\nuse Vendor\\Lib\\Other;\n",
    "artisan": "#!/usr/bin/env php\n<?php\nuse App\\Jobs\\Clean;\nClean::run();\n",  # PHP by its #! line
}
ROWS = [
    ("php use.php", "ask"), ("php qualified.php", "ask"), ("php group.php", "ask"), ("php same_ns.php", "ask"),
    ("php longest.php", "ask"), ("php dev.php", "ask"), ("php artisan migrate", "ask"), ("php calm.php", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_what_a_php_script_autoloads_of_the_project(world, command, expected):
    write_files(world.project, FILES)
    verdict = await decide_bash(make_ctx(world.project, mode="bypassPermissions", **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))


@pytest.mark.skipif(shutil.which("php") is None or shutil.which("composer") is None,
                    reason="php and composer are installed from Debian by .ci/run")
def test_the_files_found_are_the_files_php_includes(tmp_path):
    project = tmp_path / "proj"
    write_files(project, {
        **{k: v for k, v in FILES.items() if k.startswith(("composer.json", "src/", "special/", "more-tests/"))},
        "main.php": "<?php\nrequire __DIR__ . '/vendor/autoload.php';\nuse App\\Jobs\\Runner;\n"
                    "use App\\Special\\Thing;\n(new Runner())->go();\nThing::class;\n\\App\\Jobs\\Calm::class;\n"
                    "echo implode(\"\\n\", get_included_files());\n",
    })
    env = {**os.environ, "COMPOSER_HOME": str(tmp_path / "composer-home"), "COMPOSER_NO_INTERACTION": "1"}
    subprocess.run(["composer", "dump-autoload", "-q"], cwd=project, check=True, timeout=120, env=env)
    for name in ("src/Jobs/Clean.php", "special/Thing.php"):  # (run nothing: only be loaded)
        (project / name).write_text((project / name).read_text().replace('exec("rm -rf build");', ""))
    done = subprocess.run(["php", "main.php"], cwd=project, check=True, timeout=60, capture_output=True, text=True)
    root = os.path.realpath(project)
    included = {os.path.relpath(os.path.realpath(line), root) for line in done.stdout.split("\n") if line.strip()}
    ran = {p for p in included if not p.startswith("vendor/")} - {"main.php"}
    assert ran == {"src/helpers.php", "src/Jobs/Runner.php", "src/Jobs/Clean.php"}, ran
    found = {os.path.relpath(p, root) for p in loaded_files([os.path.join(root, "main.php")], root)}
    # ::class names a class without loading it: read as well (more, not fewer)
    assert found - ran <= {"special/Thing.php", "src/Jobs/Calm.php"} and ran <= found, (found, ran)
