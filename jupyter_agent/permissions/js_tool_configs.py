"""The JavaScript configuration files JavaScript tools load and run: ``eslint.config.js``,
``jest.config.ts``, ``vite.config.mjs``, ``webpack.config.js`` …

Such a file is code: ``eslint .``, ``jest``, ``vite build``, ``webpack``, ``next build``,
``playwright test`` … each ran an ``eslint.config.js`` (or the tool's) holding
``require("child_process").execSync("rm x")`` unasked under ``Bash(rm:*)`` denied in
bypassPermissions.  Here each tool's configuration files are found as it finds them — the file its
``-c``/``--config`` option names, else its file names in the folder and the folders above it, up
to the nearest ``package.json`` — and ``code_files.py`` reads them as a script (their imports
follow).  A test runner's test files are read too: ``jest``, ``vitest``, ``mocha`` … run them.
"""

from __future__ import annotations

import os

from .bash_words import Word
from .paths import folders_up

_JS = (".js", ".cjs", ".mjs", ".ts", ".mts", ".cts")


def _names(*stems: str) -> tuple[str, ...]:
    return tuple(stem + suffix for stem in stems for suffix in _JS)


# tool -> the configuration files it loads (JavaScript or TypeScript: code)
CONFIGS: dict[str, tuple[str, ...]] = {
    "jest": _names("jest.config"), "vitest": _names("vitest.config", "vitest.workspace", "vite.config"),
    "vite": _names("vite.config"), "webpack": _names("webpack.config", "webpackfile"),
    "webpack-cli": _names("webpack.config"), "webpack-dev-server": _names("webpack.config"),
    "rollup": _names("rollup.config"), "eslint": (*_names("eslint.config"), ".eslintrc.js", ".eslintrc.cjs"),
    "prettier": (*_names("prettier.config"), ".prettierrc.js", ".prettierrc.cjs", ".prettierrc.mjs"),
    "babel": (*_names("babel.config"), ".babelrc.js", ".babelrc.cjs"),
    "postcss": (*_names("postcss.config"), ".postcssrc.js", ".postcssrc.cjs"),
    "tailwindcss": _names("tailwind.config"), "playwright": _names("playwright.config"),
    "cypress": _names("cypress.config"), "next": _names("next.config"), "nuxt": _names("nuxt.config"),
    "nuxi": _names("nuxt.config"), "astro": _names("astro.config"), "svelte-kit": _names("svelte.config", "vite.config"),
    "mocha": (".mocharc.js", ".mocharc.cjs"), "stylelint": (*_names("stylelint.config"), ".stylelintrc.js"),
    "commitlint": _names("commitlint.config"), "lint-staged": (*_names("lint-staged.config"), ".lintstagedrc.js"),
    "tsup": _names("tsup.config"), "pm2": _names("ecosystem.config"), "docusaurus": _names("docusaurus.config"),
    "gatsby": _names("gatsby-config", "gatsby-node"), "remix": _names("remix.config", "vite.config"),
    "parcel": (".parcelrc.js",), "karma": _names("karma.conf"), "ava": _names("ava.config"),
    "nyc": (".nycrc.js",), "c8": (".c8rc.js",), "storybook": (), "turbo": (), "esbuild": (),
}
# test runners: the test files they run by default
TEST_RUNNERS = frozenset({"jest", "vitest", "mocha", "ava", "jasmine", "tap", "playwright", "cypress", "karma"})
_TEST_MARKS = (".test.", ".spec.", "_test.", "_spec.")
_TEST_FOLDERS = ("test", "tests", "__tests__", "spec", "e2e")
_SKIPPED = frozenset({"node_modules", ".git", "dist", "build", ".next", "coverage", ".venv", "venv"})
_MAX_TESTS = 2_000
_CONFIG_OPTIONS = ("-c", "--config", "--config-file", "--configFile")


# programs that run a JavaScript file their operands name with node (nodemon x.js, pm2 start x.js)
JS_LAUNCHERS = frozenset({"nodemon", "pm2", "forever", "node-dev", "ts-node-dev", "c8", "nyc"})


def launched_scripts(form: tuple[Word, ...], cwd: str) -> list[str]:
    """The JavaScript files ``nodemon x.js``, ``pm2 start x.js``, ``c8 node x.js`` run: every
    operand that is such a file here (an option's value read as one names no script)."""
    found: list[str] = []
    for word in form[1:]:
        text = word.literal
        if text and text[:1] != "-" and text.endswith((*_JS, ".jsx", ".tsx")):
            path = os.path.join(cwd, os.path.expanduser(text))
            if os.path.isfile(path):
                found.append(os.path.realpath(path))
    return found


def tool_config_files(form: tuple[Word, ...], name: str, cwd: str) -> list[str]:
    """The configuration files (and, for a test runner, the test files) ``form`` (a JavaScript
    tool ``name``) loads from ``cwd``: real paths of files that are there."""
    found: list[str] = []
    words = [w.literal for w in form[1:]]
    for i, word in enumerate(words):
        if word is None:
            continue
        key, eq, value = word.partition("=")
        if key in _CONFIG_OPTIONS:
            given = value if eq else words[i + 1] if i + 1 < len(words) else None
            if given and given.endswith(_JS):
                path = os.path.join(cwd, os.path.expanduser(given))
                if os.path.isfile(path):
                    found.append(os.path.realpath(path))
    for folder in folders_up(cwd):  # up to the package's folder
        found += [os.path.realpath(os.path.join(folder, n)) for n in CONFIGS.get(name, ())
                  if os.path.isfile(os.path.join(folder, n))]
        if os.path.isfile(os.path.join(folder, "package.json")):
            break
    if name in TEST_RUNNERS:
        found += _test_files(cwd)
    return list(dict.fromkeys(found))


def _test_files(cwd: str) -> list[str]:
    """The test files below ``cwd`` (``*.test.js``, ``*.spec.ts``, the files of ``test/`` and
    ``__tests__/``), at most ``_MAX_TESTS``; node_modules and build output are left out."""
    found: list[str] = []
    for root, dirs, files in os.walk(cwd):
        dirs[:] = [d for d in dirs if d not in _SKIPPED and not d.startswith(".")]
        in_tests = any(part in _TEST_FOLDERS for part in os.path.relpath(root, cwd).split(os.sep))
        for name in files:
            if name.endswith((*_JS, ".jsx", ".tsx")) and (in_tests or any(m in name for m in _TEST_MARKS)):
                found.append(os.path.realpath(os.path.join(root, name)))
                if len(found) >= _MAX_TESTS:
                    return found
    return found


__all__ = ["CONFIGS", "JS_LAUNCHERS", "TEST_RUNNERS", "launched_scripts", "tool_config_files"]
