"""Python calls that read or remove every file below a folder no string names as a file.

``shutil.make_archive('/tmp/a', 'zip', '.')`` (and with no folder at all: the current one) put
``.env`` in the archive, ``shutil.copytree('.', '/tmp/x')`` copied it, and ``shutil.rmtree('.')``
removed it and ``.git`` — in a NotebookExecute cell or ``python -c`` under bypassPermissions,
since the strings checks look for files, not for what lies below a folder.  These calls are read
with ``ast`` (an IPython cell's magics and shell lines left out): the folder they walk is
checked as ``tar cf - DIR`` and ``rm -rf DIR`` are (``filesystem.read_deny_in``, following links
as ``copytree`` and ``make_archive`` do; protected folders inside for ``rmtree``).  A folder only
known at run time counts as unknown; code that does not parse but names one of these calls too.

Likewise a folder listed by code that also reads files: ``for f in os.listdir('.'):
print(open(f).read())`` printed ``.env``, and so did ``Path('.').glob('*')`` and ``os.walk``
with ``open``.  The listing calls (``listdir``, ``scandir``, ``walk``, ``fwalk``, ``iterdir``,
pathlib's ``glob``/``rglob``/``walk``, ``glob.glob``/``iglob``) count as reading what they list
when the code calls anything that reads or copies a file (``open``, ``read_text``, ``copy``,
``read_csv``, ``subprocess.run`` …): the files they would list now are checked against the Read
deny rules, by the listing's pattern (``Path('data').glob('*.csv')`` never lists ``.env``;
``glob.glob('*')`` skips dot files, as Python's glob does).  A folder only known at run time
asks under a Read deny rule, unless its pattern cannot match what the rules deny.  JavaScript
code (``node -e``, a ``.js`` file a line runs) is read the same way with regular expressions:
``fs.readdirSync('.')`` + ``fs.readFileSync(f)`` printed ``.env`` too (``js_listings``).
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .compiled import PathScope
from .filesystem import read_deny_in, read_deny_listed
from .paths import protected_inside

# name → (the positional index and keyword of the folder, the default folder, whether it removes)
_CALLS: dict[str, tuple[int, str, str | None, bool]] = {
    "make_archive": (2, "root_dir", ".", False),  # make_archive(base, fmt, root_dir=cwd, base_dir=…)
    "copytree": (0, "src", None, False),
    "copy_tree": (0, "src", None, False),  # distutils / setuptools' dir_util
    "rmtree": (0, "path", None, True),
}
_NAMED = re.compile(r"\b(?:make_archive|copytree|copy_tree|rmtree)\b")
_SHELL_LINE = re.compile(r"^(\s*)[%!]", re.MULTILINE)
_CHDIR = re.compile(r"%cd\b|%pushd\b|\bchdir\b|^\s*cd\s", re.MULTILINE)


@lru_cache(maxsize=16)
def python_tree(code: str) -> ast.Module | None:
    """``code`` parsed as Python, an IPython cell's ``%magic`` and ``!cmd`` lines left out (None:
    it is not Python).  Kept for a few codes: one question asks several readers about one cell."""
    try:
        return ast.parse(_SHELL_LINE.sub(lambda m: m.group(1) + "pass  #", code))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@lru_cache(maxsize=256)
def walked_folders(code: str) -> tuple[tuple[str | None, bool], ...]:
    """``(folder, removes)`` for each such call of ``code`` (the folder as written, None when
    only known at run time); ``()`` when there is none."""
    if _NAMED.search(code) is None:
        return ()
    if code.lstrip().startswith("%%"):  # a cell magic: not Python (%%bash …: read as shell code)
        return ()
    tree = python_tree(code)
    if tree is None:
        return tuple((None, name == "rmtree") for name in set(_NAMED.findall(code)))
    found: list[tuple[str | None, bool]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        spec = _CALLS.get(name or "")
        if spec is None:
            continue
        index, keyword, default, removes = spec
        value: ast.expr | None = next((k.value for k in node.keywords if k.arg == keyword), None)
        if value is None and len(node.args) > index:
            value = node.args[index]
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            found.append((None, removes))  # *args, **kwargs: any folder
        elif value is None:
            found.append((default, removes))
        elif isinstance(value, ast.Constant) and isinstance(value.value, str):
            found.append((value.value, removes))
        elif isinstance(value, ast.Constant) and value.value is None and default is not None:
            found.append((default, removes))
        else:
            found.append((None, removes))
    return tuple(found)


# listing calls: name → (positional index and keyword of the folder or pattern, kind)
_LISTERS: dict[str, tuple[int, str]] = {
    "listdir": (0, "path"), "scandir": (0, "path"), "walk": (0, "top"), "fwalk": (0, "top"),
    "iterdir": (-1, ""), "rglob": (0, "pattern"), "glob": (0, "pattern"), "iglob": (0, "pathname"),
}
_LISTING = re.compile(r"\b(?:listdir|scandir|walk|fwalk|iterdir|glob|iglob|rglob)\b")
_READING = re.compile(r"\b(?:open|read_text|read_bytes|copy|copy2|copyfile|copyfileobj|move|read_csv|read_table|"
                      r"read_excel|read_json|read_parquet|read_feather|read_pickle|read_fwf|loadtxt|genfromtxt|"
                      r"fromfile|load|dotenv_values|load_dotenv|run|call|check_output|check_call|Popen|system|"
                      r"popen|getoutput|getstatusoutput|write|add|send|post|put|upload_file|upload)\b")


@dataclass(frozen=True)
class Listing:
    """What a listing call lists: the folder as written (None: only known at run time), the
    pattern of names (None: every name), whether it goes below, whether dot files count."""

    folder: str | None
    pattern: str | None
    recursive: bool
    hidden: bool = True


@lru_cache(maxsize=256)
def listed_folders(code: str) -> tuple[Listing, ...]:
    """The listings of ``code`` when it also reads files (``()`` when it does not)."""
    if _LISTING.search(code) is None or _READING.search(code) is None or code.lstrip().startswith("%%"):
        return ()
    tree = python_tree(code)
    if tree is None:
        return (Listing(None, None, True),)
    names = _bound_names(tree)
    found: list[Listing] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            listing = _listing(node, names)
            if listing is not None:
                found.append(listing)
    return tuple(found)


def _bound_names(tree: ast.AST) -> dict[str, str | None]:
    """Names the code binds to one folder: ``DATA = 'data'``, ``DATA = Path('data')`` (None: bound
    otherwise, or to different values)."""
    names: dict[str, str | None] = {}
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.NamedExpr)):
            targets, value = [node.target], node.value
        elif isinstance(node, (ast.For, ast.comprehension, ast.With, ast.withitem)):
            targets = [node.target] if isinstance(node, (ast.For, ast.comprehension)) else []
            if isinstance(node, ast.withitem) and node.optional_vars is not None:
                targets = [node.optional_vars]
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    folder = _path_value(value, {}) if isinstance(target, ast.Name) and value is not None else None
                    if name.id in names and names[name.id] != folder:
                        folder = None
                    names[name.id] = folder
    return names


def _path_value(node: ast.expr, names: dict[str, str | None]) -> str | None:
    """The folder a string or ``Path(string)`` expression spells, or None."""
    text = _text(node, names)
    if text is not None:
        return text
    if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
        if name in ("Path", "PurePath", "PosixPath", "WindowsPath") and not node.keywords:
            if not node.args:
                return "."
            if len(node.args) == 1:
                return _text(node.args[0], names)
    return None


def _text(node: ast.expr | None, names: dict[str, str | None]) -> str | None:
    if isinstance(node, ast.Name):
        return names.get(node.id)
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _argument(node: ast.Call, index: int, keyword: str) -> tuple[ast.expr | None, bool]:
    """The argument at ``index`` or ``keyword``, and whether the call spreads ``*args``/``**kw``."""
    spread = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
    value = next((k.value for k in node.keywords if k.arg == keyword), None)
    if value is None and 0 <= index < len(node.args):
        value = node.args[index]
    return value, spread


def _receiver_folder(func: ast.Attribute, names: dict[str, str | None]) -> tuple[bool, str | None]:
    """For ``X.iterdir()``: whether X is a path whose folder is written in the code, and it."""
    value = func.value
    folder = _path_value(value, names)
    if folder is not None:
        return True, folder
    if isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)):
        name = value.func.attr if isinstance(value.func, ast.Attribute) else value.func.id
        if name in ("cwd", "getcwd") and not value.args:
            return True, "."
        if name == "home" and not value.args:
            return True, "~"
    return False, None


def _listing(node: ast.Call, names: dict[str, str | None]) -> Listing | None:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    spec = _LISTERS.get(name or "")
    if spec is None:
        return None
    index, keyword = spec
    value, spread = _argument(node, index, keyword)
    module = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
    if name in ("listdir", "scandir", "walk", "fwalk") and module in ("os", None) and not (
            name == "walk" and module is None and isinstance(func, ast.Attribute) and not node.args):
        if module is None and name == "walk":
            return None  # a bare walk() is no os.walk (Path(…).walk() is read below)
        folder = "." if value is None and not spread else _text(value, names)
        return Listing(folder, None, name in ("walk", "fwalk"))
    if name in ("glob", "iglob") and (module == "glob" or isinstance(func, ast.Name)):  # from glob import glob
        pattern = _text(value, names)
        root, _ = _argument(node, 99, "root_dir")
        hidden_kw, _ = _argument(node, 99, "include_hidden")
        recursive_kw, _ = _argument(node, 99, "recursive")
        hidden = isinstance(hidden_kw, ast.Constant) and bool(hidden_kw.value) or hidden_kw is not None and not isinstance(
            hidden_kw, ast.Constant)
        recursive = recursive_kw is not None and not (isinstance(recursive_kw, ast.Constant) and not recursive_kw.value)
        if pattern is None or spread:
            return Listing(None, None, True, hidden)
        base = _text(root, names) if root is not None else "."
        head, _, tail = pattern.rpartition("/")
        folder = None if base is None else os.path.join(base, head) if head else base
        deep = recursive and "**" in pattern
        if folder is not None and _GLOB_CHARS.intersection(folder):  # glob('*/x.txt'): below the literal head
            folder, deep = _literal_head(folder), True
        return Listing(folder, tail, deep or folder is None, hidden or tail.startswith("."))  # '.*' lists dot files
    if isinstance(func, ast.Attribute) and name in ("iterdir", "glob", "rglob", "walk"):
        known, folder = _receiver_folder(func, names)
        if name == "iterdir":
            return Listing(folder if known else None, None, False)
        if name == "walk":  # Path.walk() takes no positional argument (ast.walk(tree) is no listing)
            return Listing(folder if known else None, None, True) if known or not node.args else None
        pattern = _text(value, names)
        if pattern is None or spread:
            return Listing(folder if known else None, None, True)
        head, _, tail = pattern.rpartition("/")
        return Listing(folder if known else None, tail, name == "rglob" or bool(head))
    return None


_GLOB_CHARS = frozenset("*?[")


def _literal_head(folder: str) -> str:
    """The folder a pattern's folder part starts from: ``src/*/x`` → ``src``, ``*/x`` → ``.``."""
    parts = folder.split("/")
    cut = next(i for i, part in enumerate(parts) if _GLOB_CHARS.intersection(part))
    return "/".join(parts[:cut]) or "."


def _may_name(pattern: str | None, hidden: bool, scope: PathScope) -> bool:
    """Could a listing with this name pattern list a file some Read deny rule denies, wherever it
    looks?  Judged from each rule's last component: ``*.csv`` cannot be ``.env``."""
    if pattern is None:
        return True
    for _rule, patterns in scope.read_deny:
        for rule in patterns:
            last = rule.text.rstrip("/").rpartition("/")[2]
            if last in ("", "*", "**") or _GLOB_CHARS.intersection(last):
                return True
            if not hidden and last.startswith(".") and not pattern.startswith("."):
                continue  # glob.glob('*') skips dot files
            if fnmatch.fnmatchcase(last.lower(), pattern.lower()) if rule.fold else fnmatch.fnmatchcase(last, pattern):
                return True
    return False


def _listed_denied(folder: str, listing: Listing, scope: PathScope) -> str | None:
    """The Read deny rule of a file the listing would list in the real folder ``folder`` now."""
    if listing.pattern is None and listing.hidden and listing.recursive:
        return read_deny_in(folder, scope, links=True)
    pattern, hidden = listing.pattern, listing.hidden

    def listed(name: str) -> bool:
        return (hidden or not name.startswith(".")) and (pattern is None or fnmatch.fnmatchcase(name, pattern))

    return read_deny_listed(folder, scope, listing.recursive, listed)


def folder_calls_reason(codes: Sequence[str], cwd: str, scope: PathScope) -> str | None:
    """Why code in ``codes`` run from the real folder ``cwd`` must ask: a call that copies,
    archives or removes a folder holding a file a Read deny rule denies (or, removing, a
    protected path), or such a call on a folder only known at run time when that could matter;
    None when none does."""
    for code in codes:
        moves = _CHDIR.search(code) is not None  # %cd x, os.chdir(x): a relative folder is read from elsewhere
        for folder, removes in walked_folders(code):
            if folder is not None and moves and not os.path.isabs(os.path.expanduser(folder)):
                folder = None
            if folder is None:
                if scope.read_deny or removes:
                    return ("copies, archives or removes a folder only known at run time "
                            f"({'shutil.rmtree' if removes else 'shutil.copytree/make_archive'}), which may hold a "
                            "protected or Read-denied file")
                continue
            real = os.path.realpath(os.path.join(cwd, os.path.expanduser(folder)))
            rule = read_deny_in(real, scope, links=not removes) if scope.read_deny else None
            if rule is not None:
                verb = "removes" if removes else "copies or archives"
                return f"{verb} every file below {folder}, where the rule {rule} denies reading"
            inside = protected_inside(real, scope.roots) if removes else None
            if inside is not None:
                return f"removes every file below {folder}, which holds {inside}"
        if scope.read_deny:
            why = _listing_reason(code, cwd, scope, moves)
            if why is not None:
                return why
    return None


# JavaScript (node -e, the .js files a line runs): fs.readdir*/opendir* list every name, dot
# files too; glob, globSync and fast-glob skip dot files unless given `dot: true`
_JS_LISTING = re.compile(r"\b(readdirSync|readdir|opendirSync|opendir|globSync|glob\.sync|glob|fg\.sync|fg|fastGlob)"
                         r"\s*\(\s*"
                         r"(?:(['\"`])((?:(?!\2)[^\\\n])*)\2|([^,)]*))")
_JS_READING = re.compile(r"\b(?:readFileSync|readFile|createReadStream|copyFileSync|copyFile|cpSync|cp|fetch|"
                         r"request|post|send|execSync|exec|spawnSync|spawn|upload|writeFileSync|writeFile)\s*\(")
_JS_DOT = re.compile(r"\bdot\s*:\s*true\b")
_JS_RECURSIVE = re.compile(r"\brecursive\s*:\s*true\b")


@lru_cache(maxsize=256)
def js_listings(code: str) -> tuple[Listing, ...]:
    """The listings of JavaScript ``code`` that also reads files (``()`` for Python code)."""
    if _JS_LISTING.search(code) is None or _JS_READING.search(code) is None:
        return ()
    if python_tree(code) is not None:
        return ()  # Python: listed_folders reads it
    found: list[Listing] = []
    for match in _JS_LISTING.finditer(code):
        name, text, expression = match.group(1), match.group(3), (match.group(4) or "").strip()
        if text is not None and "${" in text:
            text = None  # a template literal with a substitution: only known at run time
        elif text is None and expression.replace(" ", "") in ("process.cwd(", "process.cwd()"):
            text = "."
        if name.startswith(("readdir", "opendir")):
            found.append(Listing(text, None, _JS_RECURSIVE.search(code) is not None))
            continue
        if text is None or "cwd:" in code.replace(" ", ""):
            found.append(Listing(None, None, True, _JS_DOT.search(code) is not None))
            continue
        found.append(_pattern_listing(text, "**" in text, _JS_DOT.search(code) is not None))
    return tuple(found)


def _pattern_listing(pattern: str, deep: bool, hidden: bool) -> Listing:
    """What a glob ``pattern`` lists: below the literal head of its folder part (``src/*/x`` looks
    below ``src``), names matching its last part (dot files too when that starts with ``.``)."""
    head, _, tail = pattern.rpartition("/")
    folder = head or "."
    if _GLOB_CHARS.intersection(folder):
        folder, deep = _literal_head(folder), True
    return Listing(folder, tail, deep, hidden or tail.startswith("."))


# R (Rscript -e, the .R files a line runs): list.files/dir (dot files with all.files = TRUE),
# fs's dir_ls (all = TRUE), Sys.glob; what reads, copies or sends a file
_R_LISTING = re.compile(r"(?<![\w.])(list\.files|dir|Sys\.glob|dir_ls|dir_info)\s*\(")
_R_READING = re.compile(r"(?<![\w.])(?:(?:readLines|read\.csv2?|read\.table|read\.delim2?|readRDS|readChar|readBin|"
                        r"file\.copy|file\.show|read_csv|read_lines|read_file|fread|read_excel|read_yaml|fromJSON|"
                        r"upload_file)(?![\w.])|(?:scan|file|load|source|POST|zip|tar|system2?)\s*\()")  # lapply(x, readLines)
_R_STRING = re.compile(r"""^\s*(?:path\s*=\s*)?(['"])((?:(?!\1)[^\\])*)\1\s*(?:,|$)""")
_R_TRUE = r"\s*=\s*(?:TRUE|T)\b"


@lru_cache(maxsize=256)
def r_listings(code: str) -> tuple[Listing, ...]:
    """The listings of R ``code`` that also reads files (what R lists by default skips dot
    files; ``pattern`` is a regular expression: every name counts)."""
    if _R_LISTING.search(code) is None or _R_READING.search(code) is None:
        return ()
    python = python_tree(code) is not None and "<-" not in code  # Python's dir(obj) lists no files
    found: list[Listing] = []
    for match in _R_LISTING.finditer(code):
        name, args = match.group(1), _r_arguments(code, match.end())
        if python and name == "dir":
            continue
        string = _R_STRING.match(args)
        positional = args.strip() and not string and "=" not in args.split(",")[0]
        text = string.group(2) if string else None if positional else "."
        if name == "Sys.glob":
            if text is None or text == ".":
                found.append(Listing(None, None, True))
                continue
            found.append(_pattern_listing(text, False, False))  # (R's ** is *)
            continue
        hidden = re.search(r"\ball(?:\.files)?" + _R_TRUE, args) is not None
        recursive = re.search(r"\brecurse?(?:ive)?" + _R_TRUE, args) is not None
        found.append(Listing(text, None, recursive, hidden))
    return tuple(found)


def _r_arguments(code: str, start: int) -> str:
    """The text of a call's arguments from ``start`` (after its ``(``) to its closing parenthesis
    (nested calls included: ``list.files(file.path("a", "b"), all.files = TRUE)``)."""
    depth, quote, i = 1, "", start
    while i < len(code):
        c = code[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                break
        i += 1
    return code[start:i]


def _listing_reason(code: str, cwd: str, scope: PathScope, moves: bool) -> str | None:
    moves = moves or "process.chdir" in code or "setwd(" in code
    for listing in listed_folders(code) or js_listings(code) or r_listings(code):
        folder = listing.folder
        if folder is not None and moves and not os.path.isabs(os.path.expanduser(folder)):
            folder = None
        if folder is None:
            if _may_name(listing.pattern, listing.hidden, scope):
                return ("lists a folder only known at run time and reads files, where the rule "
                        f"{scope.read_deny[0][0]} may deny reading one")
            continue
        real = os.path.realpath(os.path.join(cwd, os.path.expanduser(folder)))
        if not os.path.isdir(real):
            continue
        rule = _listed_denied(real, listing, scope)
        if rule is not None:
            return f"lists {folder} and reads files, and a file it lists there is one the rule {rule} denies reading"
    return None


__all__ = ["Listing", "folder_calls_reason", "js_listings", "listed_folders", "python_tree", "r_listings",
           "walked_folders"]
