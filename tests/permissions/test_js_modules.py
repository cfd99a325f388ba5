"""A JavaScript or TypeScript file's imports as the TypeScript runners and bundlers resolve them
(``js_modules.py``): ``tsconfig.json`` paths and ``baseUrl``, ``extends``, a ``.js`` name's ``.ts``
source, ``package.json`` imports.  Under ``Bash(rm:*)`` denied, a helper's ``execSync("rm -rf
x")`` asks as the entry file's own would; before, each "ask" row ran unasked.

The ground truth: TypeScript's own compiler (``tsc --listFilesOnly``, the labextension's) lists
the files a program of one entry file holds, and the files found here are exactly those."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jupyter_agent.permissions.code_imports import loaded_files

from .conftest import verdict_name
from .tools import decide_bash, make_ctx, write_files

_RULES = {"allow": ("Bash(*)",), "deny": ("Bash(rm:*)",)}
WIPE_TS = 'import { execSync } from "child_process";\nexport function go() { execSync("rm -rf build"); }\n'
CALM_TS = 'export function go() { console.log("to rm a file use rm"); }\n'
TSC = Path(__file__).resolve().parents[2] / "labextension" / "node_modules" / "typescript" / "bin" / "tsc"

TSCONFIG = """{
  // the project's aliases (comments and trailing commas, as TypeScript allows)
  "extends": "./tsconfig.base.json",
  "compilerOptions": {
    "paths": {
      "@/*": ["src/*"],
      "~util": ["src/util/index.ts"],
      "@gen/*": ["generated/*", "src/fallback/*"],
      "@lib/*": ["src/lib/*"],
      "@lib/special/*": ["src/special/*"],
    },
  },
}
"""

FILES = {
    "tsconfig.json": TSCONFIG,
    "tsconfig.base.json": '{"compilerOptions": {"baseUrl": ".", "strict": true}}',
    "package.json": json.dumps({"name": "app", "type": "module", "imports": {
        "#jobs/*": {"node": "./src/jobs/*.ts", "default": "./src/jobs/*.js"}, "#calm": "./src/calm.ts"}}),
    # each entry imports one helper that runs rm, one way
    "src/alias.ts": 'import { go } from "@/lib/clean";\ngo();\n',
    "src/exact.ts": 'import u from "~util";\nu();\n',
    "src/twin.ts": 'import { go } from "./helper.js";\ngo();\n',
    "src/mts.mts": 'import { go } from "./esm.mjs";\ngo();\n',
    "src/baseurl.ts": 'import { go } from "src/lib/clean";\ngo();\n',
    "src/fallback.ts": 'import { go } from "@gen/made";\ngo();\n',
    "src/longest.ts": 'import { go } from "@lib/special/x";\ngo();\n',
    "src/folder.ts": 'import { go } from "@/lib";\ngo();\n',
    "src/dynamic.ts": 'const m = await import("@/lib/clean");\nm.go();\n',
    "src/reexport.ts": 'export * from "@/lib/clean";\n',
    "src/required.cts": 'const m = require("@/lib/clean");\nm.go();\n',
    "src/hash.ts": 'import { go } from "#jobs/wipe";\ngo();\n',
    "src/chain.ts": 'import "@/middle";\n',
    "src/middle.ts": 'import { go } from "./lib/clean";\ngo();\n',
    "src/lib/clean.ts": WIPE_TS,
    "src/lib/index.ts": 'export * from "./clean";\n',
    "src/util/index.ts": 'import { execSync } from "child_process";\nexport default () => execSync("rm -rf u");\n',
    "src/helper.ts": WIPE_TS,
    "src/esm.mts": WIPE_TS,
    "src/fallback/made.ts": WIPE_TS,
    "src/special/x.ts": WIPE_TS,
    "src/jobs/wipe.ts": WIPE_TS,
    # calm ones: the same forms to files that run nothing, a package, an alias to nowhere
    "src/calm_alias.ts": 'import { go } from "@/calm";\nimport "#calm";\nimport React from "react";\ngo();\n',
    "src/calm.ts": CALM_TS,
    "src/calm_missing.ts": 'import { go } from "@/nowhere";\nimport { x } from "./gone.js";\n',
    "src/lib/unused.ts": WIPE_TS,
    "node_modules/react/index.js": 'require("child_process").execSync("rm -rf x");\n',
    "node_modules/react/package.json": '{"name": "react", "main": "index.js"}',
    # a nested package with a configuration of its own (the nearest one counts), extending a
    # shared configuration from node_modules
    "packages/web/tsconfig.json": '{"extends": "@acme/tsconfig/base.json", "compilerOptions": '
                                  '{"paths": {"@web/*": ["lib/*"]}}}',  # relative to the inherited baseUrl
    "packages/web/main.ts": 'import { go } from "@web/clean";\ngo();\n',
    "packages/web/lib/clean.ts": WIPE_TS,
    "packages/web/shared.ts": 'import { go } from "src/shared/wipe";\ngo();\n',  # the shared config's baseUrl
    "packages/web/src/shared/wipe.ts": WIPE_TS,
    "node_modules/@acme/tsconfig/base.json": '{"compilerOptions": {"baseUrl": "../../../packages/web"}}',
    # a JavaScript project with jsconfig.json
    "jsapp/jsconfig.json": '{"compilerOptions": {"baseUrl": ".", "paths": {"@app/*": ["app/*"]}}}',
    "jsapp/main.js": 'const { go } = require("@app/clean");\ngo();\n',
    "jsapp/app/clean.js": 'module.exports.go = () => require("child_process").execSync("rm -rf x");\n',
    # Deno's import map: in deno.json, or in the file its importMap names
    "denoapp/deno.json": '{"imports": {"@/": "./src/", "helpers": "./lib/helpers.ts", "std/": "jsr:@std/"}}',
    "denoapp/main.ts": 'import { go } from "@/jobs.ts";\ngo();\n',
    "denoapp/other.ts": 'import { go } from "helpers";\ngo();\n',
    "denoapp/calm.ts": 'import { exists } from "std/fs/mod.ts";\nimport { go } from "@/calm.ts";\ngo();\n',
    "denoapp/src/jobs.ts": WIPE_TS,
    "denoapp/src/calm.ts": CALM_TS,
    "denoapp/lib/helpers.ts": WIPE_TS,
    "denomap/deno.jsonc": '{\n  // the map is a file of its own\n  "importMap": "./maps/import_map.json",\n}\n',
    "denomap/maps/import_map.json": '{"imports": {"#/": "../src/"}}',
    "denomap/main.ts": 'import { go } from "#/jobs.ts";\ngo();\n',
    "denomap/src/jobs.ts": WIPE_TS,
    # a package of the project's workspace, linked into node_modules (npm, pnpm, yarn)
    "src/workspace.ts": 'import { go } from "@acme/wipe";\ngo();\n',
    "packages/wipe/package.json": '{"name": "@acme/wipe", "exports": {".": {"import": "./src/index.ts"}}}',
    "packages/wipe/src/index.ts": WIPE_TS,
    # a script of no suffix, JavaScript by its #! line
    "bin/cli": '#!/usr/bin/env node\nconst { go } = require("../src/helper");\ngo();\n',
}

ROWS = [
    ("npx tsx src/alias.ts", "ask"), ("tsx src/exact.ts", "ask"), ("tsx src/twin.ts", "ask"),
    ("tsx src/mts.mts", "ask"), ("tsx src/baseurl.ts", "ask"), ("tsx src/fallback.ts", "ask"),
    ("tsx src/longest.ts", "ask"), ("tsx src/folder.ts", "ask"), ("tsx src/dynamic.ts", "ask"),
    ("tsx src/reexport.ts", "ask"), ("tsx src/required.cts", "ask"), ("tsx src/hash.ts", "ask"),
    ("tsx src/chain.ts", "ask"), ("ts-node src/alias.ts", "ask"), ("bun run src/alias.ts", "ask"),
    ("cd packages/web && tsx main.ts", "ask"), ("tsx packages/web/shared.ts", "ask"),
    ("node jsapp/main.js", "ask"), ("deno run denoapp/main.ts", "ask"), ("cd denoapp && deno run -A other.ts", "ask"),
    ("deno run denomap/main.ts", "ask"), ("deno run denoapp/calm.ts", "allow"), ("tsx src/workspace.ts", "ask"),
    ("node bin/cli", "ask"),
    ("tsx src/calm_alias.ts", "allow"), ("tsx src/calm_missing.ts", "allow"),
]



@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_what_a_typescript_file_imports_of_the_project(world, command, expected):
    write_files(world.project, FILES)
    os.makedirs(world.project / "node_modules" / "@acme", exist_ok=True)
    os.symlink("../../packages/wipe", world.project / "node_modules" / "@acme" / "wipe")
    verdict = await decide_bash(make_ctx(world.project, mode="bypassPermissions", **_RULES), command)
    assert verdict_name(verdict) == expected, (command, getattr(verdict, "message", ""))
    if expected == "ask":
        assert "may be shell code a program runs" in verdict.message, verdict.message


def _found(project: Path, entry: str) -> set[str]:
    main = os.path.realpath(project / entry)
    return {os.path.relpath(p, os.path.realpath(project)) for p in loaded_files([main], os.path.realpath(project))}


def test_bad_configurations_read_nothing_more_and_never_fail(tmp_path):
    """A configuration that does not parse, extends itself, or holds values of the wrong shape
    names nothing; the relative imports are still followed."""
    project = tmp_path / "p"
    write_files(project, {
        "src/main.ts": 'import "@/a";\nimport "./rel";\nimport "#x";\nimport "~y";\n',
        "src/rel.ts": "",
        "src/a.ts": "",
        "package.json": '{"imports": {"#x": ["./src/a.ts", 7, null, {"deep": {"deeper": "./gone.ts"}}]}}',
    })
    configs = [
        "{ not json", '{"extends": "./tsconfig.json"}', '{"compilerOptions": {"paths": {"@/*": "src/*"}}}',
        '{"compilerOptions": {"paths": ["src/*"], "baseUrl": 3}}', '{"compilerOptions": {"paths": {"*/*": ["x/*"]}}}',
        '{"extends": ["./a.json", 5, "missing-package"], "compilerOptions": null}', "[]", "\xff\xfe",
        '{"compilerOptions": {"paths": {"~y": [1, "src/rel.ts"]}}}',
    ]
    for config in configs:
        (project / "tsconfig.json").write_text(config)
        found = _found(project, "src/main.ts")
        assert "src/rel.ts" in found and "src/a.ts" in found, (config, found)  # a.ts: through #x
    assert _found(project, "src/main.ts") >= {"src/rel.ts"}


def test_extends_chains_are_bounded(tmp_path):
    project = tmp_path / "p"
    chain = {f"c{i}.json": json.dumps({"extends": f"./c{i + 1}.json"}) for i in range(20)}
    write_files(project, {**chain, "tsconfig.json": '{"extends": "./c0.json"}',
                     "c20.json": '{"compilerOptions": {"paths": {"@/*": ["src/*"]}}}',
                     "src/main.ts": 'import "@/a";\n', "src/a.ts": ""})
    assert "src/a.ts" not in _found(project, "src/main.ts")  # past the bound: not read, no hang


# the oracle's project: one tsconfig with everything TypeScript resolves under "bundler" rules
_ORACLE = {
    "tsconfig.json": json.dumps({
        "extends": "./base.json", "files": ["src/main.ts"],
        "compilerOptions": {"noEmit": True, "module": "esnext", "moduleResolution": "bundler", "allowJs": True,
                            "types": [], "allowImportingTsExtensions": True, "noResolve": False,
                            "paths": {"@/*": ["src/*"], "~u": ["src/util/index.ts"], "@g/*": ["gen/*", "src/fb/*"],
                                      "@l/*": ["src/l/*"], "@l/s/*": ["src/s/*"]}}}),
    "base.json": json.dumps({"compilerOptions": {"baseUrl": "."}}),
    "package.json": json.dumps({"name": "o", "type": "module", "imports": {"#j/*": "./src/j/*.ts"}}),
    "src/main.ts": "\n".join([
        'import "@/a";', 'import "~u";', 'import "./twin.js";', 'import "src/b";', 'import "@g/made";',
        'import "@l/s/x";', 'import "@l/y";', 'import "@/folder";', 'import "#j/w";', 'export * from "@/re";',
        'import "./c.mjs";', 'import "@/nowhere";', "export {};", ""]),
    "src/a.ts": 'import "./a2";\n', "src/a2.ts": "", "src/util/index.ts": "", "src/twin.ts": "",
    "src/b.ts": "", "src/fb/made.ts": "", "src/s/x.ts": "", "src/l/y.ts": "", "src/folder/index.ts": "",
    "src/j/w.ts": "", "src/re.ts": 'import "@/a2";\n', "src/c.mts": "",
    "src/unused.ts": "", "src/l/unused.ts": "", "gen/other.ts": "",
}


@pytest.mark.skipif(not TSC.is_file(), reason="TypeScript is installed with the labextension's npm packages")
def test_the_files_found_are_the_files_typescript_resolves(tmp_path):
    project = tmp_path / "proj"
    write_files(project, _ORACLE)
    done = subprocess.run(["node", str(TSC), "-p", "tsconfig.json", "--listFilesOnly"], cwd=project,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    listed = {os.path.relpath(os.path.realpath(line), os.path.realpath(project))
              for line in done.stdout.split("\n") if line.strip() and "node_modules" not in line}
    assert "src/main.ts" in listed and "src/fb/made.ts" in listed and "src/j/w.ts" in listed, listed
    assert _found(project, "src/main.ts") == listed - {"src/main.ts"}


_DENO = shutil.which("deno", path=os.path.dirname(sys.executable)) or shutil.which("deno")


@pytest.mark.skipif(_DENO is None, reason="deno (a test dependency on PyPI) is not installed")
def test_the_files_found_are_the_files_deno_loads(tmp_path):
    """``deno info --json`` lists the module graph Deno builds with the import map (offline)."""
    project = tmp_path / "proj"
    write_files(project, {
        "deno.json": '{"imports": {"@/": "./src/", "@/deep/": "./other/", "helpers": "./lib/helpers.ts", '
                     '"std/": "jsr:@std/"}}',
        "main.ts": 'import "@/a.ts";\nimport "helpers";\nimport "./b.ts";\nimport "@/deep/d.ts";\n',
        "src/a.ts": 'import "@/c.ts";\n', "src/c.ts": "", "lib/helpers.ts": "", "b.ts": "", "other/d.ts": "",
        "src/deep/d.ts": "", "src/unused.ts": "",
    })
    env = {**os.environ, "DENO_DIR": str(tmp_path / "deno-dir"), "DENO_NO_UPDATE_CHECK": "1"}
    done = subprocess.run([str(_DENO), "info", "--json", "main.ts"], cwd=project, capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    modules = {m["specifier"] for m in json.loads(done.stdout)["modules"]}
    listed = {os.path.relpath(os.path.realpath(m.removeprefix("file://")), os.path.realpath(project)) for m in modules}
    assert "other/d.ts" in listed and "src/c.ts" in listed, listed  # the longest prefix; through a mapped file
    assert _found(project, "main.ts") == listed - {"main.ts"}


_ESM_LOG = 'import { appendFileSync } from "node:fs";\nappendFileSync(process.env.LOG, new URL(import.meta.url).pathname + "\\n");\n'
_CJS_LOG = 'require("fs").appendFileSync(process.env.LOG, __filename + "\\n");\n'


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_workspace_packages_found_are_those_node_runs(tmp_path):
    """A workspace's packages are linked into node_modules (npm, pnpm, yarn): Node runs their
    files; an installed package (a real folder in node_modules) is not the project's."""
    project = tmp_path / "proj"
    write_files(project, {
        "package.json": '{"name": "root", "private": true, "workspaces": ["packages/*"]}',
        "main.mjs": _ESM_LOG + 'import "@acme/utils";\nimport "esm-pkg";\nimport "esm-pkg/feature";\n'
                               'import "installed";\n',
        "packages/utils/package.json": '{"name": "@acme/utils", "main": "lib/index.js"}',
        "packages/utils/lib/index.js": _CJS_LOG + 'require("./clean");\n',
        "packages/utils/lib/clean.js": _CJS_LOG,
        "packages/utils/lib/unused.js": _CJS_LOG,
        "packages/esm/package.json": json.dumps({"name": "esm-pkg", "type": "module", "exports": {
            ".": {"import": "./src/main.mjs", "require": "./src/main.cjs"}, "./feature": "./src/feature.mjs"}}),
        "packages/esm/src/main.mjs": _ESM_LOG,
        "packages/esm/src/main.cjs": _CJS_LOG,
        "packages/esm/src/feature.mjs": _ESM_LOG + 'import "./deep.mjs";\n',
        "packages/esm/src/deep.mjs": _ESM_LOG,
        "node_modules/installed/package.json": '{"name": "installed", "main": "index.js"}',
        "node_modules/installed/index.js": _CJS_LOG,
    })
    (project / "node_modules" / "@acme").mkdir()
    os.symlink("../../packages/utils", project / "node_modules" / "@acme" / "utils")
    os.symlink("../packages/esm", project / "node_modules" / "esm-pkg")
    log = tmp_path / "ran.log"
    subprocess.run(["node", "main.mjs"], cwd=project, check=True, timeout=60, env={**os.environ, "LOG": str(log)})
    root = os.path.realpath(project)
    ran = {os.path.relpath(os.path.realpath(line), root) for line in log.read_text().split()}
    assert "node_modules/installed/index.js" in ran and "packages/utils/lib/clean.js" in ran, ran
    ran = {p for p in ran if not p.startswith("node_modules/")} - {"main.mjs"}
    # every condition's target is read: the require one too, which this import did not take
    assert _found(project, "main.mjs") == ran | {"packages/esm/src/main.cjs"}
