"""The build code a build or install of a project runs (``package_builds.py``): under ``Bash(rm:*)``
denied and ``Bash(*)`` allowed in bypass, ``pip install .`` with a ``setup.py`` calling
``os.system("rm -rf x")`` ran rm unasked, as did ``cargo build`` with such a ``build.rs``, ``gradle
build``, ``cmake -S . -B build`` … Each "ask" row below was allowed before the change; where this
machine has the tool, a test runs it for the ground truth (the build code really runs)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from .conftest import verdict_name
from .tools import decide_bash, make_ctx

_RULES = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)",), "mode": "bypassPermissions"}
SETUP = 'import os\nfrom setuptools import setup\nos.system("rm -rf x")\nsetup(name="p")\n'
PLAIN_SETUP = 'from setuptools import setup\nsetup(name="p", version="1")\n'
HOOK = 'import subprocess\nclass H:\n    def initialize(self, v, d):\n        subprocess.run(["rm", "x"])\n'
BACKEND = ('[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["_build"]\n'
           '[project]\nname = "p"\nversion = "1"\n')
BUILD_RS = 'use std::process::Command;\nfn main() { Command::new("rm").arg("x").status().unwrap(); }\n'
CARGO = '[package]\nname = "p"\nversion = "0.1.0"\n'
WORKSPACE = '[workspace]\nmembers = ["crates/*"]\n'
GRADLE = 'task clean2 { doLast { exec { commandLine "rm", "-rf", "x" } } }\n'
POM = ('<project><build><plugins><plugin><artifactId>exec-maven-plugin</artifactId><configuration>'
       '<executable>rm</executable><arguments><argument>-rf</argument></arguments>'
       '</configuration></plugin></plugins></build></project>\n')
PLAIN_POM = '<project><modelVersion>4.0.0</modelVersion><groupId>org.example</groupId></project>\n'
CMAKE = 'cmake_minimum_required(VERSION 3.10)\nproject(p NONE)\nexecute_process(COMMAND rm -rf x)\n'
CUSTOM = ('add_custom_target(wipe ALL\n  COMMAND ${CMAKE_COMMAND} -E echo hi\n  COMMAND rm -rf\n'
          '    "out dir"\n  WORKING_DIRECTORY ${CMAKE_BINARY_DIR})\n')
PLAIN_CMAKE = 'project(p NONE)\nadd_custom_target(hi COMMAND echo rm "to rm it" VERBATIM)\n'
MESON = "project('p')\nrun_command('rm', '-rf', 'x', check: false)\n"
GEMSPEC = 'Gem::Specification.new { |s| system("rm -rf x") }\n'
GYP = '{"targets": [{"target_name": "x", "actions": [{"action_name": "a", "action": ["rm", "-rf", "x"]}]}]}\n'
TF = 'resource "null_resource" "x" {\n  provisioner "local-exec" {\n    command = "rm -rf x"\n  }\n}\n'
TF_HEREDOC = ('resource "null_resource" "x" {\n  provisioner "local-exec" {\n    command = <<-EOT\n'
              '      echo start\n      rm -rf x\n    EOT\n  }\n}\n')

ROWS = [
    # pip and the tools that build a Python project: setup.py, the in-tree backend, hatch's hook
    ({"setup.py": SETUP}, "pip install .", "ask"), ({"setup.py": SETUP}, "pip install -e .", "ask"),
    ({"setup.py": SETUP}, "pip3 install -e '.[dev]'", "ask"), ({"setup.py": SETUP}, "pip install --editable=.", "ask"),
    ({"setup.py": SETUP}, "python3 -m pip install --no-deps .", "ask"),
    ({"setup.py": SETUP}, "pip wheel -w dist .", "ask"), ({"setup.py": SETUP}, "pip download -d d .", "ask"),
    ({"sub/setup.py": SETUP}, "pip install ./sub", "ask"), ({"sub/setup.py": SETUP}, "pip install -e sub", "ask"),
    ({"sub/setup.py": SETUP}, "cd sub && pip install .", "ask"),
    ({"setup.py": SETUP}, "pip install 'p @ file:.'", "ask"), ({"setup.py": SETUP}, "pip install file:.", "ask"),
    ({"setup.py": SETUP, "requirements.txt": "numpy\n-e .\n"}, "pip install -r requirements.txt", "ask"),
    ({"sub/setup.py": SETUP, "req.txt": "-r more.txt\n", "more.txt": "./sub  # local\n"}, "pip install -r req.txt",
     "ask"),
    ({"setup.py": SETUP}, "uv pip install -e .", "ask"), ({"setup.py": SETUP}, "uv sync", "ask"),
    ({"setup.py": SETUP, "pyproject.toml": "[project]\nname='p'\n"}, "cd sub && uv run pytest", "ask"),
    ({"setup.py": SETUP}, "uv build", "ask"), ({"setup.py": SETUP}, "uv tool install .", "ask"),
    ({"setup.py": SETUP}, "uvx --from . p", "ask"), ({"setup.py": SETUP}, "pipx install .", "ask"),
    ({"setup.py": SETUP}, "python -m build", "ask"), ({"sub/setup.py": SETUP}, "pyproject-build sub", "ask"),
    ({"setup.py": SETUP}, "poetry install", "ask"), ({"setup.py": SETUP}, "pdm install", "ask"),
    ({"setup.py": SETUP}, "hatch build", "ask"), ({"setup.py": SETUP, "tox.ini": "[tox]\n"}, "tox -e py", "ask"),
    ({"pyproject.toml": BACKEND, "_build/backend.py": HOOK}, "pip install .", "ask"),
    ({"pyproject.toml": "[project]\nname='p'\n", "hatch_build.py": HOOK}, "pip install .", "ask"),
    ({"pyproject.toml": "[tool.hatch.build.targets.wheel.hooks.custom]\npath = 'tools/hook.py'\n",
      "tools/hook.py": HOOK}, "hatch build", "ask"),
    ({"pyproject.toml": "[tool.poetry.build]\nscript = 'make_ext.py'\n", "make_ext.py": HOOK}, "poetry build", "ask"),
    ({"setup.py": SETUP, "CMakeLists.txt": CMAKE}, "pip install .", "ask"),  # (and scikit-build's CMake)
    ({"pyproject.toml": "[project]\nname='p'\n", "CMakeLists.txt": CMAKE}, "pip install .", "ask"),
    # the local projects a project installs from a path: uv's sources and workspace, poetry's, file: URLs
    ({"pyproject.toml": "[tool.uv.sources]\nlib = { path = 'libs/lib', editable = true }\n",
      "libs/lib/setup.py": SETUP}, "uv sync", "ask"),
    ({"pyproject.toml": "[tool.uv.workspace]\nmembers = ['packages/*']\n", "packages/a/setup.py": SETUP},
     "uv run pytest", "ask"),
    ({"pyproject.toml": "[tool.poetry.group.dev.dependencies]\nlib = { path = '../lib', develop = true }\n",
      "../lib/setup.py": SETUP}, "poetry install", "ask"),
    ({"pyproject.toml": "[project]\nname = 'p'\ndependencies = ['lib @ file:///${PROJECT_ROOT}/lib']\n",
      "lib/setup.py": SETUP}, "pdm install", "ask"),
    ({"pyproject.toml": "[tool.uv.sources]\nlib = { path = 'lib' }\n[tool.uv.workspace]\nmembers = ['lib']\n",
      "lib/pyproject.toml": "[tool.uv.sources]\nlib2 = { path = '../lib2' }\n", "lib2/setup.py": SETUP},
     "uv sync", "ask"),  # a source's own sources
    # pixi's PyPI dependencies given by path
    ({"pixi.toml": "[pypi-dependencies]\np = { path = '.', editable = true }\n", "setup.py": SETUP}, "pixi install",
     "ask"),
    ({"pyproject.toml": "[tool.pixi.feature.dev.pypi-dependencies]\nlib = { path = 'lib' }\n",
      "lib/setup.py": SETUP}, "pixi run test", "ask"),
    ({"pixi.toml": "[pypi-dependencies]\np = { path = '.', editable = true }\n", "setup.py": SETUP}, "pixi list",
     "allow"),
    # conda's environment file: its pip section
    ({"environment.yml": "dependencies:\n  - python=3.11\n  - pip:\n    - -e .\n", "setup.py": SETUP},
     "conda env create", "ask"),
    ({"env.yml": "dependencies:\n  - pip:\n    - ./sub\n", "sub/setup.py": SETUP}, "mamba env update -f env.yml",
     "ask"),
    ({"env.yml": "dependencies:\n  - pip:\n    - -r requirements.txt\n", "requirements.txt": "-e .\n",
      "setup.py": SETUP}, "micromamba create -n x -f env.yml", "ask"),
    ({"environment.yml": "dependencies:\n  - numpy\n  - pip:\n    - requests\n", "setup.py": SETUP},
     "conda env create", "allow"),
    ({"environment.yml": "dependencies:\n  - pip:\n    - -e .\n", "setup.py": SETUP}, "conda list", "allow"),
    # nothing of the project runs, or nothing in its build code is a ruled command
    ({"setup.py": SETUP}, "pip install requests", "allow"), ({"setup.py": SETUP}, "pip install -r missing.txt", "allow"),
    ({"setup.py": SETUP}, "pip list", "allow"), ({"setup.py": SETUP}, "pip uninstall -y p", "allow"),
    ({"setup.py": SETUP}, "uv run --no-project python a.py", "allow"), ({"setup.py": SETUP}, "uv pip list", "allow"),
    ({"setup.py": SETUP}, "poetry install --no-root", "allow"), ({"setup.py": SETUP}, "poetry show", "allow"),
    ({"setup.py": SETUP}, "pip install --target ./sub requests", "allow"),
    ({"setup.py": PLAIN_SETUP}, "pip install -e .", "allow"), ({"sub/x.txt": "x"}, "pip install ./sub", "allow"),
    # cargo: the package's build script, a workspace's members'
    ({"Cargo.toml": CARGO, "build.rs": BUILD_RS}, "cargo build", "ask"),
    ({"Cargo.toml": CARGO, "build.rs": BUILD_RS}, "cargo +nightly test", "ask"),
    ({"Cargo.toml": CARGO, "build.rs": BUILD_RS}, "cd sub && cargo check", "ask"),
    ({"Cargo.toml": CARGO + 'build = "tools/gen.rs"\n', "tools/gen.rs": BUILD_RS}, "cargo run", "ask"),
    ({"Cargo.toml": WORKSPACE, "crates/a/Cargo.toml": CARGO, "crates/a/build.rs": BUILD_RS}, "cargo build", "ask"),
    ({"sub/Cargo.toml": CARGO, "sub/build.rs": BUILD_RS}, "cargo build --manifest-path sub/Cargo.toml", "ask"),
    ({"Cargo.toml": CARGO, "build.rs": BUILD_RS}, "cargo fmt", "allow"),
    ({"Cargo.toml": CARGO + "build = false\n", "build.rs": BUILD_RS}, "cargo build", "allow"),
    ({"Cargo.toml": CARGO, "build.rs": BUILD_RS}, "cargo install ripgrep", "allow"),
    # cargo run|test|bench …: the crate's own code runs (its sources, tests, examples), not only built
    ({"Cargo.toml": CARGO, "src/main.rs": BUILD_RS}, "cargo run --release", "ask"),
    ({"Cargo.toml": CARGO, "src/lib.rs": "", "tests/it.rs": BUILD_RS}, "cargo test", "ask"),
    ({"Cargo.toml": WORKSPACE, "crates/a/Cargo.toml": CARGO, "crates/a/src/lib.rs": BUILD_RS}, "cargo nextest run",
     "ask"),
    ({"Cargo.toml": CARGO, "src/main.rs": BUILD_RS}, "cargo build", "allow"),
    ({"Cargo.toml": CARGO, "src/main.rs": "fn main() {}\n", "target/debug/build/gen.rs": BUILD_RS}, "cargo run",
     "allow"),
    # JVM builds, Elixir, Clojure, Tilt
    ({"build.gradle": GRADLE}, "gradle build", "ask"), ({"build.gradle": GRADLE}, "./gradlew test", "ask"),
    ({"settings.gradle": "", "app/build.gradle.kts": GRADLE}, "gradle build", "ask"),
    ({"settings.gradle": "", "app/build.gradle.kts": GRADLE}, "cd sub && ./gradlew tasks", "ask"),
    ({"build.gradle": GRADLE}, "gradle --version", "allow"),
    ({"pom.xml": POM}, "mvn package", "ask"), ({"app/pom.xml": POM}, "mvn -f app/pom.xml test", "ask"),
    ({"pom.xml": PLAIN_POM}, "mvn package", "allow"), ({"pom.xml": POM}, "mvn -v", "allow"),
    ({"build.xml": '<project><exec executable="rm"><arg value="x"/></exec></project>'}, "ant", "ask"),
    ({"build.sbt": 'val wipe = taskKey[Unit]("")\nwipe := { "rm -rf x".! }\n'}, "sbt compile", "ask"),
    ({"project/plugins.sbt": 'Process("rm x").!\n'}, "sbt test", "ask"),
    ({"mix.exs": 'System.cmd("rm", ["-rf", "x"])\n'}, "mix compile", "ask"),
    ({"project.clj": '(defproject p "1" :aliases {"wipe" ["shell" "rm" "-rf" "x"]})\n'}, "lein wipe", "ask"),
    ({"Tiltfile": "local('rm -rf x')\n"}, "tilt up", "ask"), ({"Tiltfile": "local('rm -rf x')\n"}, "tilt version", "allow"),
    # infrastructure: terraform's local-exec (a string or a heredoc, in a local module too), packer's
    # shell-local, the Vagrantfile's Ruby, Pulumi's program
    ({"main.tf": TF}, "terraform apply -auto-approve", "ask"), ({"main.tf": TF}, "terraform plan", "ask"),
    ({"main.tf": TF}, "tofu destroy", "ask"), ({"infra/main.tf": 'module "m" {\n  source = "./mod"\n}\n',
                                               "infra/mod/m.tf": TF_HEREDOC}, "terraform -chdir=infra apply", "ask"),
    ({"main.tf": TF}, "terraform fmt", "allow"), ({"main.tf": TF}, "terraform validate", "allow"),
    ({"main.tf": TF.replace("rm -rf x", "echo done")}, "terraform apply", "allow"),
    ({"x.pkr.hcl": 'build {\n  provisioner "shell-local" { inline = ["rm -rf x"] }\n}\n'}, "packer build .", "ask"),
    ({"Vagrantfile": 'Vagrant.configure("2") { system("rm -rf x") }\n'}, "cd sub && vagrant up", "ask"),
    ({"Vagrantfile": 'Vagrant.configure("2") { system("rm -rf x") }\n'}, "vagrant --version", "allow"),
    ({"Pulumi.yaml": "name: p\nruntime: python\n", "__main__.py": 'import os\nos.system("rm -rf x")\n'},
     "pulumi up --yes", "ask"),
    ({"Pulumi.yaml": "name: p\nruntime: python\nmain: src/\n", "src/__main__.py": 'import os\nos.system("rm x")\n'},
     "pulumi preview", "ask"),
    ({"Pulumi.yaml": "name: p\nruntime: python\n", "__main__.py": 'import os\nos.system("rm -rf x")\n'},
     "pulumi stack ls", "allow"),
    # documentation builds: Sphinx's conf.py (also through make html), mkdocs' hooks
    ({"docs/conf.py": SETUP}, "sphinx-build -b html docs out", "ask"),
    ({"docs/conf.py": SETUP}, "python -m sphinx -M html docs _build", "ask"),
    ({"docs/conf.py": SETUP, "docs/Makefile": "html:\n\tsphinx-build -b html . _build\n"}, "make -C docs html", "ask"),
    ({"docs/conf.py": SETUP}, "sphinx-build -C docs out", "allow"), ({"docs/conf.py": PLAIN_SETUP}, "sphinx-build docs o", "allow"),
    ({"mkdocs.yml": "site_name: !ENV [NAME, x]\nhooks:\n  - hooks.py\n", "hooks.py": SETUP}, "mkdocs build", "ask"),
    ({"mkdocs.yml": "site_name: x\nhooks:\n  - hooks.py\n", "hooks.py": SETUP}, "mkdocs --version", "allow"),
    # Ruby's Gemfile and gemspecs, node-gyp's binding.gyp (npm builds it on install)
    ({"Gemfile": 'source "https://rubygems.org"\ngemspec\n', "p.gemspec": GEMSPEC}, "bundle install", "ask"),
    ({"Gemfile": 'system("rm -rf x")\n'}, "cd sub && bundle exec rspec", "ask"),
    ({"p.gemspec": GEMSPEC}, "gem build p.gemspec", "ask"), ({"p.gemspec": GEMSPEC}, "bundle --version", "allow"),
    ({"binding.gyp": GYP}, "node-gyp rebuild", "ask"), ({"binding.gyp": GYP, "package.json": "{}"}, "npm install", "ask"),
    ({"binding.gyp": GYP, "package.json": "{}"}, "yarn", "ask"),
    ({"binding.gyp": GYP, "package.json": '{"scripts": {"build": "tsc"}}'}, "npm run build", "allow"),
    # CMake (source tree, a build folder's source, script mode), CTest, meson
    ({"CMakeLists.txt": CMAKE}, "cmake -S . -B build", "ask"), ({"CMakeLists.txt": CMAKE}, "cmake -B build", "ask"),
    ({"CMakeLists.txt": CMAKE}, "mkdir -p b && cd b && cmake ..", "ask"),
    ({"CMakeLists.txt": "project(p NONE)\nadd_subdirectory(lib)\n", "lib/CMakeLists.txt": CUSTOM},
     "cmake -S . -B build", "ask"),
    ({"CMakeLists.txt": "include(cmake/wipe.cmake)\n", "cmake/wipe.cmake": CUSTOM}, "cmake .", "ask"),
    ({"x.cmake": CMAKE}, "cmake -P x.cmake", "ask"),
    ({"CMakeLists.txt": PLAIN_CMAKE}, "cmake -S . -B build", "allow"), ({"CMakeLists.txt": CMAKE}, "cmake --version", "allow"),
    ({"build/CTestTestfile.cmake": 'add_test(t "rm" "-rf" "x")\n'}, "ctest --test-dir build", "ask"),
    ({"build/CTestTestfile.cmake": 'add_test(t "rm" "-rf" "x")\n'}, "ctest --test-dir build -N", "allow"),
    ({"meson.build": MESON}, "meson setup build", "ask"), ({"meson.build": MESON}, "meson build", "ask"),
    ({"meson.build": "project('p')\nsubdir('lib')\n", "lib/meson.build": MESON}, "meson setup b", "ask"),
    ({"meson.build": MESON}, "meson --version", "allow"),
    # session 49: Swift's manifest, Zig's build program, dune's actions, xmake's and mage's code
    ({"Package.swift": 'import Foundation\nlet p = Process(); p.launchPath = "/bin/rm"; p.arguments = ["-rf", "x"]\n'},
     "swift build", "ask"),
    ({"Package.swift": 'import Foundation\n_ = "rm -rf x"\n'}, "cd sub && swift test", "ask"),  # the nearest one
    ({"Package.swift": 'let p = Package(name: "x")\n'}, "swift build", "allow"),
    ({"Package.swift": '_ = "rm -rf x"\n'}, "swift --version", "allow"),
    ({"build.zig": 'pub fn build(b: *std.Build) void { _ = b.addSystemCommand(&.{ "rm", "-rf", "x" }); }\n'},
     "zig build", "ask"),
    ({"build.zig": "pub fn build(b: *std.Build) void {}\n"}, "zig build", "allow"),
    ({"dune-project": "(lang dune 3.0)\n", "test/dune": "(rule (alias runtest) (action (run rm -rf x)))\n"},
     "dune test", "ask"),  # an unquoted (run …): its words are the command line
    ({"dune-project": "(lang dune 3.0)\n", "dune": '(rule (action (system "rm -rf x")))\n'}, "dune build", "ask"),
    ({"dune-project": "(lang dune 3.0)\n", "dune": "(rule (action (run echo hi)))\n"}, "dune build", "allow"),
    ({"xmake.lua": 'target("x")\n  on_build(function () os.exec("rm -rf x") end)\n'}, "xmake", "ask"),
    ({"magefile.go": 'package main\nfunc X() error { return sh.Run("rm", "-rf", "x") }\n'}, "mage x", "ask"),
    ({"magefiles/m.go": 'package main\nfunc X() error { return sh.Run("rm", "-rf", "x") }\n'}, "mage x", "ask"),
    ({"magefile.go": 'package main\nfunc X() error { return sh.Run("rm", "-rf", "x") }\n'}, "mage -l", "allow"),
]


def _write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.mark.parametrize(("files", "command", "expected"), ROWS)
async def test_the_build_code_a_build_runs(world, files, command, expected):
    _write(world.project, files)
    verdict = await decide_bash(make_ctx(world.project, **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))
    if expected == "ask":
        assert "which the line runs" in verdict.message and "rm" in verdict.message, verdict.message


async def test_a_build_folder_names_its_source(world):
    """``cmake --build DIR`` and ``meson compile -C DIR``: the source their build folder records."""
    _write(world.project, {"CMakeLists.txt": CMAKE, "meson.build": MESON})
    build = world.project / "out"
    _write(build, {"CMakeCache.txt": f"CMAKE_HOME_DIRECTORY:INTERNAL={world.project}\n",
                   "meson-info/meson-info.json": json.dumps({"directories": {"source": str(world.project)}}),
                   "build.ninja": "rule say\n  command = echo hi\nbuild all: say\n"})
    ctx = make_ctx(world.project, **_RULES)
    for command in ("cmake --build out", "cmake --install out", "meson compile -C out", "meson test -C out"):
        verdict = await decide_bash(ctx, command)
        assert verdict_name(verdict) == "ask" and "which the line runs" in verdict.message, command
    (world.project / "CMakeLists.txt").write_text(PLAIN_CMAKE)
    (world.project / "meson.build").write_text("project('p')\n")
    for command in ("cmake --build out", "meson compile -C out"):
        verdict = await decide_bash(ctx, command)
        assert verdict_name(verdict) == "allow", (command, getattr(verdict, "message", ""))


async def test_only_an_ask_and_only_under_rules_naming_programs(world):
    _write(world.project, {"setup.py": SETUP, "build.rs": BUILD_RS, "Cargo.toml": CARGO})
    ctx = make_ctx(world.project, allow=("Bash(*)",), deny=("Read(./.env)",), mode="bypassPermissions")
    for command in ("pip install -e .", "cargo build"):
        assert verdict_name(await decide_bash(ctx, command)) == "allow", command
    ctx = make_ctx(world.project, allow=("Bash(pip install:*)",), deny=("Bash(rm:*)",))
    assert verdict_name(await decide_bash(ctx, "pip install -e .")) == "ask"  # never a deny


def test_pip_really_runs_setup_py(tmp_path):
    """The ground truth: building a local project runs its setup.py (pip wheel, no network)."""
    pytest.importorskip("setuptools")
    project = tmp_path / "p"
    _write(project, {"setup.py": 'import pathlib\nfrom setuptools import setup\n'
                                 'pathlib.Path(__file__).with_name("ran").write_text("1")\n'
                                 'setup(name="p", version="1", py_modules=[])\n'})
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    "-w", str(tmp_path / "w"), str(project)], check=True, capture_output=True, timeout=300)
    assert (project / "ran").read_text() == "1"


@pytest.mark.skipif(shutil.which("cmake") is None, reason="no cmake on this machine")
def test_cmake_really_runs_execute_process(tmp_path):
    """The ground truth: configuring runs ``execute_process``'s COMMAND (and in a subdirectory)."""
    _write(tmp_path, {"CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(p NONE)\nadd_subdirectory(lib)\n",
                      "lib/CMakeLists.txt": "execute_process(COMMAND touch ${CMAKE_SOURCE_DIR}/ran)\n"})
    subprocess.run(["cmake", "-S", str(tmp_path), "-B", str(tmp_path / "b")], check=True, capture_output=True,
                   timeout=300)
    assert (tmp_path / "ran").exists()


BAD_FILES = {
    "setup.py": "\x00\x01binary", "Cargo.toml": "[package\nbuild = ", "CMakeLists.txt": "COMMAND",
    "meson.build": "project('x'\nrun_command(", "pixi.toml": "[pypi-dependencies]\np = 5\n",
    "pyproject.toml": ("[build-system]\nbackend-path = 5\nbuild-backend = ['x']\n[tool.hatch.build.hooks.custom]\n"
                       "path = 7\n[tool.uv.sources]\nx = 5\ny = [1, {path = 3}]\n[tool.uv.workspace]\nmembers = 'x'\n"
                       "[project]\ndependencies = 7\noptional-dependencies = 3\n[tool.poetry]\ndependencies = 4\n"),
    "environment.yml": "dependencies: 5\n", "mkdocs.yml": "hooks: 5\n", "Pulumi.yaml": "name: p\nmain: 7\n",
    "main.tf": 'module "m" { source = "./../../../../" }\n<<EOT\n', "req.txt": "-e\n-r\n-r req.txt\n",
    ".hg/hgrc": "[hooks]\n  continuation\n=novalue\n[alias]\nx\n%include /nonexistent\n%unset\n",
    "binding.gyp": "{not json", "Gemfile": "\x00", "docs/conf.py": "",
}


@pytest.mark.parametrize("command", [
    "pip install -e .", "pip install -r req.txt", "uv sync", "poetry install", "pdm install", "cargo build", "cmake .",
    "meson setup b", "hg status", "hg commit -m x", "conda env create", "pixi install", "mkdocs build", "pulumi up",
    "terraform plan", "gradle build", "npm install", "bundle install", "sphinx-build docs out",
])
async def test_build_files_that_are_not_what_they_should_be(world, command):
    """Settings and build files of the wrong shape or not text: nothing is read from them, and
    the check neither fails nor asks for them."""
    _write(world.project, BAD_FILES)
    verdict = await decide_bash(make_ctx(world.project, **_RULES), command)
    assert verdict_name(verdict) == "allow", (command, getattr(verdict, "message", ""))
