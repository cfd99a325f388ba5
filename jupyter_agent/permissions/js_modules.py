"""Where a JavaScript or TypeScript file's import leads in the project, as TypeScript, the runners
that follow it (``tsx``, ``ts-node``, ``vite-node``, Bun, Deno) and the bundlers resolve it.

- A relative specifier (``./lib``, ``../x.js``): the file itself; a ``.js``/``.jsx``/``.mjs``/
  ``.cjs`` name's TypeScript source beside it (``import "./lib.js"`` runs ``lib.ts`` under Node's
  ESM rules in TypeScript); the name with a code suffix; a folder's ``index`` file.
- A bare specifier an import statement names (``import { x } from "@/lib/clean"``): the nearest
  ``tsconfig.json`` (or ``jsconfig.json``) of the importing file, through its ``extends``:
  ``compilerOptions.paths`` (an exact pattern before the longest ``prefix*suffix`` one, its
  substitutions in order, the first that is there wins; relative to ``baseUrl``, else to the
  configuration that sets ``paths``), then ``baseUrl`` itself (``import "lib/x"`` from
  ``baseUrl: "src"``).
- A ``#`` specifier: the ``imports`` of the nearest ``package.json`` (Node's subpath imports;
  every condition's target, since which one a runner picks is its own choice).
- Deno's import map: the ``imports`` of the nearest ``deno.json``/``deno.jsonc`` (or the file its
  ``importMap`` names), an exact key or the longest ``prefix/`` key.

- A package of the project's own workspace (npm, pnpm and yarn link ``node_modules/@acme/utils`` to
  ``packages/utils``): its ``exports`` (every condition), ``module``, ``main`` or ``index``.

Installed packages (``node_modules``) are not followed, as site-packages is not for Python.  What a
configuration that cannot be read would have named is not known; such a configuration names
nothing here (the runners would stop on it as well).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from typing import Any

from .script_files import jsonc_of, parsed_file

JS_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx")
# TypeScript's order for a name without a suffix, then the JavaScript ones
_TRY = (".ts", ".tsx", ".js", ".jsx", ".mts", ".cts", ".mjs", ".cjs")
_TS_FOR_JS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
_CONFIGS = ("tsconfig.json", "jsconfig.json")
_DENO_CONFIGS = ("deno.json", "deno.jsonc")
_MAX_EXTENDS = 8
_MAX_SUBSTITUTIONS = 16
_PACKAGE_PART = re.compile(r"@?[\w.-]+")

# (paths, the folder paths are relative to, baseUrl); None: the file has no configuration
TsConfig = tuple[dict[str, list[str]], str, str | None]


class JsLookups:
    """What one decision found of the configurations (per folder: its nearest TypeScript and
    package configuration), so that the files of one project look each up once."""

    def __init__(self, is_file: Callable[[str], str | None]) -> None:
        self.is_file = is_file  # (path) -> its real path when a regular file (a link followed), else None
        self.ts: dict[str, str | None] = {}  # folder → its nearest tsconfig.json / jsconfig.json
        self.configs: dict[str, TsConfig | None] = {}  # such a file → what it (with what it extends) sets
        self.packages: dict[str, str | None] = {}  # folder → its nearest package.json
        self.denos: dict[str, str | None] = {}  # folder → its nearest deno.json / deno.jsonc
        self.links: dict[tuple[str, str], str | None] = {}  # (folder, package) → its workspace package


def module_files(base: str, lookups: JsLookups) -> list[str]:
    """The code files (real paths) the path ``base`` of a specifier names: the file and, for a
    JavaScript name, its TypeScript source; else ``base`` with a code suffix (each that is
    there: Node and TypeScript pick differently when both are); else a folder's ``index``."""
    stem, suffix = os.path.splitext(base)
    named = [lookups.is_file(base)] if suffix in JS_SUFFIXES else []
    named += [lookups.is_file(stem + twin) for twin in _TS_FOR_JS.get(suffix, ())]
    found = [f for f in named if f]
    if found:
        return list(dict.fromkeys(found))
    found = [f for f in (lookups.is_file(base + s) for s in _TRY) if f]
    if not found:
        found = [f for f in (lookups.is_file(os.path.join(base, "index" + s)) for s in _TRY) if f]
    return list(dict.fromkeys(found))


def alias_files(specifier: str, importer: str, lookups: JsLookups) -> list[str]:
    """The project's code files a bare or ``#`` specifier of the file ``importer`` names through
    its configuration (none when no configuration maps it)."""
    folder = os.path.dirname(importer)
    found = []
    if specifier.startswith("#"):
        package = _nearest(folder, lookups.packages, ("package.json",), lookups)
        found += _package_imports(specifier, package, lookups) if package else []
    config_path = _nearest(folder, lookups.ts, _CONFIGS, lookups)
    if config_path is not None:
        if config_path not in lookups.configs:
            lookups.configs[config_path] = _ts_config(config_path)
        found += _ts_alias(specifier, lookups.configs[config_path], lookups)
    deno = _nearest(folder, lookups.denos, _DENO_CONFIGS, lookups)
    if deno is not None:
        found += _deno_import(specifier, deno, lookups)
    if not found:
        found += _workspace_package(specifier, folder, lookups)
    return list(dict.fromkeys(found))


def _workspace_package(specifier: str, folder: str, lookups: JsLookups) -> list[str]:
    """The files a package of the project's own workspace exports (``node_modules/@acme/utils``, a
    link npm, pnpm and yarn make to ``packages/utils``); a package installed in a
    ``node_modules`` folder (pnpm's store included) is not followed."""
    parts = specifier.split("/")
    count = 2 if specifier.startswith("@") else 1
    if len(parts) < count or not all(_PACKAGE_PART.fullmatch(p) for p in parts[:count]):
        return []
    name, sub = "/".join(parts[:count]), "/".join(parts[count:])
    here = folder
    while True:
        key = (here, name)
        if key not in lookups.links:
            lookups.links[key] = _linked_package(os.path.join(here, "node_modules", name))
        linked = lookups.links[key]
        if linked is not None:
            return _package_entry(linked, sub, lookups) if linked else []
        parent = os.path.dirname(here)
        if parent == here:
            return []
        here = parent


def _linked_package(path: str) -> str | None:
    """The real folder of a workspace package linked at ``path``; "" for an installed package
    (there, but not the project's); None when nothing is there."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if not stat.S_ISLNK(mode):
        return ""
    real = os.path.realpath(path)
    return "" if f"{os.sep}node_modules{os.sep}" in real + os.sep or not os.path.isdir(real) else real


def _package_entry(folder: str, sub: str, lookups: JsLookups) -> list[str]:
    """The files importing ``sub`` (or the package itself when "") of the package in ``folder``
    runs: its ``exports`` entry (every condition), ``module``/``main``, else the path itself or
    its ``index``."""
    loaded, _why = parsed_file(os.path.join(folder, "package.json"), jsonc_of)
    targets: list[str] = []
    if isinstance(loaded, dict):
        exports = loaded.get("exports")
        if not isinstance(exports, dict) or not any(isinstance(k, str) and k.startswith(".") for k in exports):
            exports = {".": exports} if exports is not None else {}
        key = "./" + sub if sub else "."
        pattern = _matching_pattern(key, {k: [] for k in exports if isinstance(k, str) and k.count("*") <= 1})
        if pattern is not None:
            star = _star_text(key, pattern)
            targets += [t.replace("*", star) for t in _targets(exports[pattern])]
        if not sub:
            targets += [loaded[k] for k in ("module", "main") if isinstance(loaded.get(k), str)]
    found = [f for t in targets if t.startswith("./") or not t.startswith(("/", "../"))
             for f in module_files(os.path.normpath(os.path.join(folder, t)), lookups)]
    if not found:
        found = module_files(os.path.join(folder, sub or "index"), lookups)
    return [f for f in dict.fromkeys(found) if f.startswith(folder + os.sep)]


def _ts_alias(specifier: str, config: TsConfig | None, lookups: JsLookups) -> list[str]:
    """What TypeScript resolves a bare specifier to through ``paths``, else ``baseUrl``."""
    if config is None:
        return []
    paths, paths_base, base_url = config
    pattern = _matching_pattern(specifier, paths)
    if pattern is not None:
        star = _star_text(specifier, pattern)
        for substitution in paths[pattern][:_MAX_SUBSTITUTIONS]:
            if not isinstance(substitution, str):
                continue
            found = module_files(os.path.join(paths_base, substitution.replace("*", star, 1)), lookups)
            if found:
                return found
    return module_files(os.path.join(base_url, specifier), lookups) if base_url else []


def _deno_import(specifier: str, config: str, lookups: JsLookups) -> list[str]:
    """What Deno's import map (``imports`` of ``deno.json``, or the file its ``importMap`` names)
    maps a specifier to: an exact key, else the longest key ending in ``/`` it starts with; only
    targets that are paths (``./src/``), not ``jsr:``/``npm:``/URLs."""
    loaded, _why = parsed_file(config, jsonc_of)
    if not isinstance(loaded, dict):
        return []
    where = os.path.dirname(config)
    imports = loaded.get("imports")
    if imports is None and isinstance(loaded.get("importMap"), str):
        path = os.path.normpath(os.path.join(where, loaded["importMap"]))
        mapped, _why = parsed_file(path, jsonc_of)
        imports = mapped.get("imports") if isinstance(mapped, dict) else None
        where = os.path.dirname(path)
    if not isinstance(imports, dict):
        return []
    target = imports.get(specifier)
    if not isinstance(target, str):
        prefixes = [k for k in imports if isinstance(k, str) and k.endswith("/") and specifier.startswith(k)]
        key = max(prefixes, key=len, default=None)
        value = imports.get(key) if key is not None else None
        if not (isinstance(value, str) and value.endswith("/")):
            return []
        target = value + specifier[len(key or ""):]
    if not target.startswith(("./", "../", "/")):
        return []
    return module_files(os.path.normpath(os.path.join(where, target)), lookups)


def _nearest(folder: str, memo: dict[str, Any], names: tuple[str, ...], lookups: JsLookups) -> Any:
    """The path of the first of ``names`` in ``folder`` or the nearest folder above it."""
    walked = []
    found = None
    while True:
        if folder in memo:
            found = memo[folder]
            break
        walked.append(folder)
        here = next((p for p in (os.path.join(folder, n) for n in names) if lookups.is_file(p)), None)
        if here is not None:
            found = here
            break
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    for each in walked:
        memo[each] = found
    return found


def _ts_config(path: str) -> TsConfig | None:
    """``paths``, their base folder and ``baseUrl`` of the configuration at ``path`` with what it
    extends (a later configuration's option replaces an earlier one's); None when it sets neither."""
    options: dict[str, tuple[Any, str]] = {}  # option → (value, folder of the configuration setting it)
    for config, loaded in reversed(_chain(path)):
        compiler = loaded.get("compilerOptions")
        if isinstance(compiler, dict):
            for key in ("paths", "baseUrl"):
                if key in compiler:
                    options[key] = (compiler[key], os.path.dirname(config))
    base_url = None
    if isinstance(options.get("baseUrl", (None,))[0], str):
        value, where = options["baseUrl"]
        base_url = os.path.normpath(os.path.join(where, value))
    paths: dict[str, list[str]] = {}
    paths_base = base_url
    if "paths" in options and isinstance(options["paths"][0], dict):
        value, where = options["paths"]
        paths = {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, list) and k.count("*") <= 1}
        paths_base = base_url or where
    if not paths and base_url is None:
        return None
    return paths, paths_base or os.path.dirname(path), base_url


def _chain(path: str) -> list[tuple[str, dict[str, Any]]]:
    """The configuration at ``path`` and those it extends, nearest first (what cannot be read or
    found is left out)."""
    chain: list[tuple[str, dict[str, Any]]] = []
    todo = [path]
    while todo and len(chain) < _MAX_EXTENDS:
        current = todo.pop(0)
        if any(current == seen for seen, _ in chain):
            continue
        loaded, _why = parsed_file(current, jsonc_of)
        if not isinstance(loaded, dict):
            continue
        chain.append((current, loaded))
        extends = loaded.get("extends")
        for name in (extends if isinstance(extends, list) else [extends]):
            found = _extended(name, os.path.dirname(current)) if isinstance(name, str) else None
            if found:
                todo.append(found)
    return chain


def _extended(name: str, folder: str) -> str | None:
    """The configuration an ``extends`` entry names from ``folder``: a path, or a package's file in
    a ``node_modules`` folder on the way up (``@tsconfig/node20/tsconfig.json``)."""
    if name.startswith((".", "/")):
        candidates = [os.path.join(folder, name)]
    else:
        candidates = []
        here = folder
        while True:
            candidates.append(os.path.join(here, "node_modules", name))
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
    for candidate in candidates:
        for each in (candidate, candidate + ".json", os.path.join(candidate, "tsconfig.json")):
            if os.path.isfile(each):
                return os.path.normpath(each)
    return None


def _matching_pattern(specifier: str, paths: dict[str, list[str]]) -> str | None:
    """TypeScript's choice: a pattern without ``*`` equal to the specifier, else the matching
    ``prefix*suffix`` pattern with the longest prefix."""
    if specifier in paths and "*" not in specifier:
        return specifier
    best = None
    for pattern in paths:
        if "*" not in pattern:
            continue
        prefix, _, suffix = pattern.partition("*")
        if (len(specifier) >= len(prefix) + len(suffix) and specifier.startswith(prefix)
                and specifier.endswith(suffix) and (best is None or len(prefix) > len(best.partition("*")[0]))):
            best = pattern
    return best


def _star_text(specifier: str, pattern: str) -> str:
    prefix, star, suffix = pattern.partition("*")
    return specifier[len(prefix):len(specifier) - len(suffix)] if star else ""


def _package_imports(specifier: str, package: str, lookups: JsLookups) -> list[str]:
    """The files a ``#`` specifier names through ``package.json``'s ``imports`` (every target of
    every condition, ``./`` relative to the package)."""
    loaded, _why = parsed_file(package, jsonc_of)
    imports = loaded.get("imports") if isinstance(loaded, dict) else None
    if not isinstance(imports, dict):
        return []
    pattern = _matching_pattern(specifier, {k: [] for k in imports if isinstance(k, str) and k.count("*") <= 1})
    if pattern is None:
        return []
    star = _star_text(specifier, pattern)
    folder = os.path.dirname(package)
    found: list[str] = []
    for target in _targets(imports[pattern]):
        if target.startswith("./"):
            found += module_files(os.path.join(folder, target.replace("*", star)), lookups)
    return list(dict.fromkeys(found))


def _targets(value: Any, depth: int = 0) -> list[str]:
    """Every string target of an ``imports`` entry (conditions and fallback arrays nested)."""
    if isinstance(value, str):
        return [value]
    if depth > 8:
        return []
    if isinstance(value, list):
        return [t for v in value[:_MAX_SUBSTITUTIONS] for t in _targets(v, depth + 1)]
    if isinstance(value, dict):
        return [t for v in list(value.values())[:_MAX_SUBSTITUTIONS] for t in _targets(v, depth + 1)]
    return []


__all__ = ["JS_SUFFIXES", "JsLookups", "alias_files", "module_files"]
