"""What programs write through an option value or one particular operand.

``bash_writes`` knows the programs whose operands are what they write (``rm``, ``cp``,
``touch``).  These others write a file named by an option or by one operand among others:
``git diff --output=F``, ``git archive -o F``, ``git clone URL DIR``, ``uniq IN OUT``,
``xxd IN OUT``, ``tree -o F``, ``tar cf F …``, ``zip F …``, ``gzip F`` (replaced by
``F.gz``), ``rsync … DEST``, ``curl -o F``, ``wget -O F``, ``split IN PREFIX``,
``csplit -f PREFIX``, ``mkdir D``, ``script F``, ``mktemp -p D``, ``python -m venv D``,
``pip install --target D``, ``jupyter nbconvert``/``jupytext`` (``notebook_tools``), ``pytest --basetemp=D``
(which pytest empties first) and its reports, ``gcc -o F``, ``go build -o F``, ``pandoc -o F``,
``shuf -o F``, ``iconv -o F``, ``gpg -o F``, ``ssh-keygen -f F``, ``uv venv D``,
``virtualenv D``, ``mkfifo F``, ``fallocate -l N F``.

A rule that allows the program (``Bash(git:*)``) does not lift what holds for the file it
writes: an ``Edit`` deny rule still denies it, and a file outside the working directories (or
one only known at run time: ``--output="$F"``) still asks — in every mode with
``blockWritesOutsideWorkingDirectories`` (``bash_arguments.program_write_check``).  Only what
these words say is known; their other words stay as they were.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Sequence

from .bash_copies import MOUNTERS, RECURSIVE_COMPRESSORS, compresses_recursively, lists_files, tar_creates
from .bash_readonly import operand_words as _operands
from .bash_readonly import option_arguments
from .bash_runners import may_name
from .bash_words import Word, make_word, run_time_word
from .formatters import FORMATTERS, formatted_folders
from .git_config import config_writes
from .git_words import git_global_options
from .manifest_writes import MANIFEST_PROGRAMS, manifest_written
from .notebook_tools import jupytext_outputs, nbconvert_outputs

Target = tuple[Word, bool]  # (what is written, whether everything below it is)

_COMPRESSORS = frozenset({"gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd",
                          "unzstd", "lz4", "unlz4", "pigz", "unpigz", "brotli", "compress", "uncompress"})
_TO_STDOUT = frozenset({"-c", "--stdout", "--to-stdout", "-l", "--list", "-t", "--test", "-h", "--help",
                        "-V", "--version"})
_PYTHON = "python"  # python, python3, python3.12 …: -m venv, -m pip
# programs whose output file is an option's value: (letter, long option) pairs
_OUTPUT_OPTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "shuf": (("o", "--output"),),
    "iconv": (("o", "--output"),),
    "pandoc": (("o", "--output"),),
    "gpg": (("o", "--output"),),
    "ssh-keygen": (("f", ""),),  # FILE and FILE.pub
    # downloads to a named file (download_guard: the names a server or URL gives)
    "gdown": (("O", "--output"),),
    "axel": (("o", "--output"),),
    **{httpie: (("o", "--output"),) for httpie in ("http", "https", "xh", "xhs")},
}
# Tools whose options (per subcommand) name where they write: (subcommand words, short letter,
# long option, "file" | "dir" | "inside").  "dir" is a folder written through (a venv, a build
# tree); "inside" new files in a folder that exists (a download folder).
_SUBCOMMAND_OUTPUTS: dict[str, tuple[tuple[tuple[str, ...], str, str, str], ...]] = {
    "uv": ((("pip", "install"), "t", "--target", "dir"), (("pip", "install"), "", "--prefix", "dir"),
           (("pip", "compile"), "o", "--output-file", "file"), (("export",), "o", "--output-file", "file"),
           (("build",), "o", "--out-dir", "dir"), ((), "", "--cache-dir", "dir")),
    **{conda: tuple((sub, "p", "--prefix", "dir") for sub in (("create",), ("install",), ("update",), ("remove",),
                                                             ("uninstall",), ("env", "create"), ("env", "update"),
                                                             ("env", "remove")))
           + ((("env", "export"), "f", "--file", "file"), (("pack",), "o", "--output", "file"))
       for conda in ("conda", "mamba", "micromamba")},
    "yarn": (((), "", "--modules-folder", "dir"), ((), "", "--cache-folder", "dir")),
    "cargo": (((), "", "--target-dir", "dir"), ((), "", "--artifact-dir", "dir"), ((), "", "--out-dir", "dir"),
              (("install",), "", "--root", "dir")),
    "coverage": ((("html",), "d", "--directory", "dir"), (("xml",), "o", "", "file"), (("json",), "o", "", "file"),
                 (("lcov",), "o", "", "file"), (("run",), "", "--data-file", "file"),
                 (("combine",), "", "--data-file", "file"), (("erase",), "", "--data-file", "file")),
    "ruff": (((), "", "--cache-dir", "dir"), ((), "o", "--output-file", "file")),
    "mypy": (((), "", "--cache-dir", "dir"), ((), "", "--html-report", "dir"), ((), "", "--junit-xml", "file"),
             ((), "", "--txt-report", "dir"), ((), "", "--xml-report", "dir"), ((), "", "--linecount-report", "dir"),
             ((), "", "--any-exprs-report", "dir"), ((), "", "--cobertura-xml-report", "dir")),
    "tox": (((), "", "--workdir", "dir"), ((), "", "--result-json", "file")),
    "nox": (((), "", "--envdir", "dir"), ((), "", "--report", "file")),
    "mkdocs": ((("build",), "d", "--site-dir", "dir"),),
    "sphinx-build": (((), "d", "", "dir"), ((), "w", "--warning-file", "file")),
    "huggingface-cli": ((("download",), "", "--local-dir", "dir"), (("download",), "", "--cache-dir", "dir")),
    "hf": ((("download",), "", "--local-dir", "dir"), (("download",), "", "--cache-dir", "dir")),
    "kaggle": tuple(((group, verb), "p", "--path", "inside")
                    for group in ("datasets", "competitions", "kernels", "models", "d", "c", "k", "m")
                    for verb in ("download", "pull", "output", "init", "metadata")),
    "quarto": ((("render",), "", "--output-dir", "dir"), (("render",), "o", "--output", "file")),
    "gh": ((("repo", "clone"), "", "", "dir"), (("gist", "clone"), "", "", "dir"),
           (("release", "download"), "D", "--dir", "dir"), (("release", "download"), "O", "--output", "file"),
           (("run", "download"), "D", "--dir", "dir")),
    "az": ((("storage", "blob", "download"), "f", "--file", "file"),
           (("storage", "blob", "download-batch"), "d", "--destination", "dir")),
    "svn": ((("checkout",), "", "", "dir"), (("co",), "", "", "dir"), (("export",), "", "", "dir")),
    "hg": ((("clone",), "", "", "dir"),),
    **{engine: ((("save",), "o", "--output", "file"), (("export",), "o", "--output", "file"),
                (("image", "save"), "o", "--output", "file"), (("container", "export"), "o", "--output", "file"),
                (("build",), "o", "--output", "build"), (("buildx", "build"), "o", "--output", "build"),
                (("image", "build"), "o", "--output", "build"), (("compose", "cp"), "", "", "dir"))
       for engine in ("docker", "podman")},
    "yt-dlp": (((), "P", "--paths", "inside"),),  # -o: download_guard
    # packages and their builds
    "gem": ((("unpack",), "", "--target", "dir"), (("install",), "i", "--install-dir", "dir"),
            (("install",), "n", "--bindir", "dir")),
    "poetry": ((("build",), "o", "--output", "dir"),),
    "pdm": ((("build",), "d", "--dest", "dir"),),
    "maturin": ((("build",), "o", "--out", "dir"),),
    "conda-pack": (((), "o", "--output", "file"),),
    "oras": ((("pull",), "o", "--output", "dir"),),
    "dvc": ((("get",), "o", "--out", "dir"), (("import",), "o", "--out", "dir"), (("get-url",), "", "", "dir"),
            (("import-url",), "", "", "dir")),
}
_SQLITE_VALUES = frozenset({"-cmd", "-init", "-separator", "-newline", "-nullvalue", "-vfs", "-mmap", "-lookaside",
                            "-pagecache", "-heap", "-maxsize", "-escape", "-c", "-s", "-f"})
# TeX's options are single-dash long ones: -output-directory=DIR (latexmk: -outdir, -auxdir)
_TEX = {"latexmk": ("outdir", "output-directory", "auxdir", "aux-directory"),
        **{tex: ("output-directory", "aux-directory") for tex in ("pdflatex", "xelatex", "lualatex", "latex", "tex")}}
_GRAPHVIZ = frozenset({"dot", "neato", "twopi", "circo", "fdp", "sfdp", "patchwork", "osage"})
_MAGICK_TOOLS = frozenset({"convert", "magick", "mogrify", "montage", "composite"})
# ffmpeg's options that take no value (every other option takes one)
_FFMPEG_FLAGS = frozenset({"-y", "-n", "-hide_banner", "-nostdin", "-an", "-vn", "-sn", "-dn", "-stats", "-nostats",
                           "-re", "-shortest", "-copyts", "-benchmark", "-benchmark_all", "-report", "-xerror",
                           "-ignore_unknown", "-stdin", "-dump", "-hex", "-autorotate", "-noautorotate",
                           "-start_at_zero", "-accurate_seek", "-noaccurate_seek", "-debug_ts", "-copytb",
                           "-apad", "-reinit_filter", "-h", "-version", "-formats", "-codecs", "-encoders", "-decoders"})
_PAPERMILL_PAIRS = frozenset({"-p", "--parameters", "-r", "--parameters_raw"})  # NAME VALUE
_PAPERMILL_VALUES = frozenset({"-f", "--parameters_file", "-y", "--parameters_yaml", "-b", "--parameters_base64",
                               "-k", "--kernel", "-l", "--language", "--cwd", "--engine", "--log-level",
                               "--start-timeout", "--start_timeout", "--execution-timeout", "--execution_timeout",
                               "--inject-paths"})
_SPHINX_VALUES = frozenset({"-b", "-d", "-c", "-D", "-A", "-j", "-t", "-w", "-M", "--builder", "--doctree-dir",
                            "--conf-dir", "--define", "--html-define", "--jobs", "--tag", "--warning-file"})
_COMPILERS = frozenset({"gcc", "g++", "cc", "c++", "clang", "clang++"})  # -o FILE; no letter clusters
_NEW_OPERANDS = frozenset({"mkfifo", "fallocate", "virtualenv"})  # every operand is made (fallocate: the last)
OPTION_WRITERS = (MOUNTERS | frozenset({"git", "uniq", "xxd", "tree", "tar", "zip", "rsync", "scp", "rclone", "curl", "wget", "split",
                            "csplit", "mkdir", "script", "mktemp", "pip", "pip3", "jupyter", "pytest",
                            "py.test", "go", "uv", "jupyter-nbconvert", "jupytext", "papermill", "sqlite3",
                            "duckdb", "ffmpeg", "hatch"}) | _MAGICK_TOOLS | _GRAPHVIZ | frozenset(_TEX)
    | frozenset(_SUBCOMMAND_OUTPUTS) | frozenset(FORMATTERS) | _COMPRESSORS | frozenset(_OUTPUT_OPTIONS) | _NEW_OPERANDS | _COMPILERS
    | MANIFEST_PROGRAMS)


def writes_by_option(program: str | None) -> bool:
    """Whether ``option_written`` knows what ``program`` writes."""
    return program is not None and (program in OPTION_WRITERS or program.startswith(_PYTHON))


def option_written(words: Sequence[Word], cwd: str | None = None) -> list[Target]:
    """``(file, recursive)`` for each file ``words`` (program first) writes through an option
    value or a particular operand, and the project files a package manager rewrites
    (``manifest_writes``); [] for a program this module does not know.  ``cwd``: where it runs,
    to tell which folders ``mkdir -p`` would make and which project a manager finds."""
    found = _option_written(words, cwd)
    if words and words[0].literal in MANIFEST_PROGRAMS:  # npm pkg set, uv add, cargo add, go mod tidy
        found = found + manifest_written(words, cwd)
    return found


def _option_written(words: Sequence[Word], cwd: str | None) -> list[Target]:
    program = words[0].literal if words else None
    args = list(words[1:])
    if program == "sphinx-build":  # sphinx-build [-M BUILDER] SOURCEDIR OUTPUTDIR
        return _subcommand_outputs(program, args) + [(w, True) for w in _operands(args, _SPHINX_VALUES)[1:2]]
    if program in _SUBCOMMAND_OUTPUTS:  # uv pip install --target D, coverage html -d D, ruff --cache-dir D
        found = _subcommand_outputs(program, args)
        if program == "uv" and args and args[0].literal == "venv":  # uv venv [PATH]
            found += [(w, True) for w in _operands(args[1:], _UV_VENV_VALUES)[:1]]
        if program in FORMATTERS:  # ruff check --fix writes what it fixes too
            found += formatted_folders(words, cwd) or []
        return found
    if program == "hatch" and args and args[0].literal == "build":  # hatch build [-t TARGET] [LOCATION]
        return [(w, True) for w in _operands(args[1:], frozenset({"-t", "--target"}))[:1]]
    if program in FORMATTERS:  # black ., ruff check --fix, prettier --write src (formatters.py)
        return formatted_folders(words, cwd) or []
    if program in ("sqlite3", "duckdb"):  # the database file, created or changed (not with -readonly)
        if any(w.literal in ("-readonly", "--readonly") for w in args):
            return []
        return [(w, False) for w in _operands(args, _SQLITE_VALUES)[:1] if w.literal != ":memory:"]
    if program == "ffmpeg":
        return _ffmpeg_outputs(args)
    if program in _TEX:
        return [(w, True) for w in _named_values(args, _TEX[program])]
    if program in _MAGICK_TOOLS:
        return _magick_outputs(program, args)
    if program in _GRAPHVIZ:  # dot -Tpng -o g.png g.dot; -O: g.dot.png beside each input
        found = _each(_compiler_outputs(args))
        if any(w.literal == "-O" for w in args):
            formats = [(w.literal or "")[2:] for w in args if (w.literal or "").startswith("-T")]
            suffix = "." + ((formats[0].split(":")[0] if formats else "") or "dot")
            found += [(_suffixed(w, suffix), False) for w in _operands(args, frozenset())]
        return found
    if program == "papermill":  # papermill IN OUT [-p NAME VALUE …]: OUT is written (- is stdout)
        return [(w, False) for w in _papermill_operands(args)[1:2] if w.literal != "-" and "://" not in w.text]
    if program == "git":
        return _git(words)
    if program in ("uniq", "xxd"):  # IN OUT: the second operand is written
        values = _UNIQ_VALUES if program == "uniq" else _XXD_VALUES
        operands = _operands(args, values)
        return [(operands[1], False)] if len(operands) > 1 else []
    if program == "tree":
        return _each(option_arguments(args, "o"))
    if program == "tar":
        return _tar(args)
    if program == "zip":
        operands = _operands(args, _ZIP_VALUES)
        return _each(operands[:1] + option_arguments(args, "O", "--output-file"))
    if program in _COMPRESSORS:
        return _compressed(program, args)
    if program in ("rsync", "scp"):
        return _copied(program, args)
    if program == "rclone":
        return _rclone_removed(args)
    if program in MOUNTERS:  # mount --bind X . hides everything below . (its .git too) behind X
        operands = _operands(args, {"-o", "-t", "-O", "-L", "-U", "-T", "--options", "--types"})
        return [(operands[-1], True)] if len(operands) > 1 or (operands and program != "mount") else []
    if program == "curl":
        return _each([w for letter, long in _CURL_FILES for w in option_arguments(args, letter, long)]) + _inside(
            option_arguments(args, "", "--output-dir"))
    if program == "wget":
        return _each([w for letter, long in _WGET_FILES for w in option_arguments(args, letter, long)]) + _inside(
            option_arguments(args, "P", "--directory-prefix"))
    if program == "split":  # split [IN [PREFIX]]: PREFIXaa, PREFIXab, …
        operands = _operands(args, _SPLIT_VALUES)
        return [(_suffixed(operands[1], "aa"), False)] if len(operands) > 1 else []
    if program == "csplit":
        return [(_suffixed(w, "00"), False) for w in option_arguments(args, "f", "--prefix")]
    if program == "mkdir":
        folders = _operands(args, {"-m", "--mode", "--context"})
        if cwd is not None and any(may_name(w, _MKDIR_PARENTS) for w in args):  # mkdir -p a/b/c makes a and a/b too (`.bashrc/x` makes a `.bashrc`)
            folders = folders + [make_word(parent) for w in folders if w.static
                                 for parent in missing_parents(w.text, cwd)]
        return _each(folders)
    if program == "script":  # script [FILE]; -B/-I/-O/-T FILE log there too
        logs = [w for letter, long in _SCRIPT_LOGS for w in option_arguments(args, letter, long)]
        return _each(_operands(args, _SCRIPT_VALUES)[:1] + logs)
    if program == "mktemp":
        return _mktemp(args)
    if program in ("pip", "pip3"):
        return _pip(args)
    if program is not None and program.startswith(_PYTHON):
        if len(args) > 1 and args[0].literal == "-m" and args[1].literal == "venv":
            return [(w, True) for w in _operands(args[2:], {"--prompt"})]
        if len(args) > 1 and args[0].literal == "-m" and args[1].literal == "pip":
            return _pip(args[2:])
        if len(args) > 1 and args[0].literal == "-m" and args[1].literal == "pytest":
            return _pytest(args[2:])
        if len(args) > 1 and args[0].literal == "-m" and args[1].literal == "nbconvert":
            return nbconvert_outputs(args[2:], cwd)
        if len(args) > 1 and args[0].literal == "-m" and args[1].literal == "jupytext":
            return jupytext_outputs(args[2:], cwd)
        if len(args) > 1 and args[0].literal == "-m" and args[1].literal == "build":  # python -m build -o DIR
            return [(w, True) for w in option_arguments(args[2:], "o", "--outdir")]
        return []
    if program in ("pytest", "py.test"):
        return _pytest(args)
    if program == "jupyter" and args and args[0].literal == "nbconvert":
        return nbconvert_outputs(args[1:], cwd)
    if program == "jupyter-nbconvert":
        return nbconvert_outputs(args, cwd)
    if program == "jupytext":  # --to's conversion, --sync's paired files (bash_paths checks the notebooks)
        return jupytext_outputs(args, cwd)
    if program in _OUTPUT_OPTIONS:  # gcc -o a.out, pandoc -o x.pdf, ssh-keygen -f key
        found = _each([w for letter, long in _OUTPUT_OPTIONS[program] for w in option_arguments(args, letter, long)])
        if program == "ssh-keygen":
            found += [(_suffixed(w, ".pub"), False) for w, _ in found]
        return found
    if program in _COMPILERS:
        return _each(_compiler_outputs(args))
    if program == "go" and args and args[0].literal in ("build", "test"):  # go build -o BIN
        return _each(option_arguments(args[1:], "o"))
    if program in _NEW_OPERANDS:
        operands = _operands(args, _NEW_OPERAND_VALUES)
        return [(w, program == "virtualenv") for w in (operands[-1:] if program == "fallocate" else operands)]
    return []


def _subcommand_outputs(program: str, args: Sequence[Word]) -> list[Target]:
    """What ``_SUBCOMMAND_OUTPUTS`` says ``program ARGS`` writes (the subcommand: its first
    words that are no option; an entry with no option names its operands after the subcommand)."""
    operands = [w for w in args if (w.literal or "-")[:1] != "-"]
    plain = [w.literal for w in operands]
    found: list[Target] = []
    for path, letter, long, kind in _SUBCOMMAND_OUTPUTS[program]:
        if tuple(plain[:len(path)]) != path:
            continue
        if not letter and not long:  # dvc get-url URL OUT, gh repo clone REPO DIR: the last operand
            values = operands[len(path) + 1:][-1:]
        else:
            values = option_arguments(args, letter, long)
        if kind == "inside":
            found += _inside(values)
        elif kind == "build":  # docker build -o DIR, --output type=local,dest=DIR (type=registry: none)
            found += [(w, True) for w in (_build_destination(v) for v in values) if w is not None]
        else:
            found += [(w, kind == "dir") for w in values]
    return found


def _build_destination(value: Word) -> Word | None:
    """Where ``docker build --output VALUE`` writes: VALUE itself, or its ``dest=`` (none for
    an image pushed or loaded); a value known only at run time is returned as it is."""
    if value.literal is None:
        return value
    if "=" not in value.text:
        return value if value.text != "-" else None
    fields = dict(part.partition("=")[::2] for part in value.text.split(","))
    return make_word(fields["dest"]) if fields.get("dest") else None


def _named_values(args: Sequence[Word], names: Sequence[str]) -> list[Word]:
    """Values of options spelled with one or two dashes: ``-outdir=D``, ``--outdir D``."""
    found: list[Word] = []
    for i, word in enumerate(args):
        text = word.literal
        if text is None:
            if word.text.lstrip("-").startswith(tuple(names)):
                found.append(word)
            continue
        name, equals, value = text.lstrip("-").partition("=")
        if text[:1] == "-" and name in names:
            if equals:
                found.append(make_word(value))
            elif i + 1 < len(args):
                found.append(args[i + 1])
    return found


def _ffmpeg_outputs(args: Sequence[Word]) -> list[Target]:
    """``ffmpeg [-i IN]… OUT…``: each word that is no option, no option's value and no input is an
    output file (``-`` and ``pipe:`` are standard output, a URL is no file)."""
    found: list[Target] = []
    i = 0
    while i < len(args):
        text = args[i].literal
        if text is not None and text[:1] == "-" and text != "-":
            i += 1 if text in _FFMPEG_FLAGS else 2  # -i IN, -c:v libx264, -ss 10 …
            continue
        if text is None or ("://" not in text and not text.startswith("pipe:") and text != "-"):
            found.append((args[i], False))
        i += 1
    return found


def _magick_outputs(program: str, args: Sequence[Word]) -> list[Target]:
    """ImageMagick writes its last operand (``convert in.png out.png``, ``magick in.png -resize 50%
    out.png``); ``mogrify`` rewrites every image it is given (or writes into ``-path DIR``);
    ``magick identify`` writes nothing."""
    if program == "magick" and args and args[0].literal in ("identify", "compare", "display", "animate", "stream"):
        return []
    if program == "magick" and args and args[0].literal in _MAGICK_TOOLS:
        program, args = args[0].literal or program, args[1:]
    plain = [w for w in args if (w.literal or "x")[:1] not in "-+"]
    if program == "mogrify":
        folders = _named_values(args, ("path",))  # (an option's value among the images: asks the safe way)
        return [(w, True) for w in folders] if folders else [(w, False) for w in plain]
    last = args[-1] if args else None
    return [(last, False)] if last is not None and (last.literal or "x")[:1] not in "-+" and plain else []


def _papermill_operands(args: Sequence[Word]) -> list[Word]:
    operands: list[Word] = []
    i = 0
    while i < len(args):
        text = args[i].literal
        if text is None or text[:1] != "-" or text == "-":
            operands.append(args[i])
            i += 1
        else:
            i += 3 if text in _PAPERMILL_PAIRS else 2 if text in _PAPERMILL_VALUES else 1
    return operands


def _compiler_outputs(args: Sequence[Word]) -> list[Word]:
    """``gcc -o a.out`` / ``-oa.out``: a compiler's options are no letter clusters (``-Wall``,
    ``-fno-common`` hold an ``o`` that is no option)."""
    found: list[Word] = []
    for i, word in enumerate(args):
        text = word.literal or ""
        if text == "-o" and i + 1 < len(args):
            found.append(args[i + 1])
        elif text.startswith("-o") and len(text) > 2:
            found.append(make_word(text[2:]))
    return found


_MKDIR_PARENTS = frozenset({"-p", "--parents"})
_UV_VENV_VALUES = frozenset({"-p", "--python", "--prompt", "--index-url", "--extra-index-url", "--index",
                             "--default-index", "-f", "--find-links", "--link-mode", "--cache-dir", "--directory",
                             "--project", "--config-file", "--color", "--exclude-newer", "--index-strategy",
                             "--keyring-provider", "--python-preference"})
_NEW_OPERAND_VALUES = frozenset({"-m", "--mode", "-Z", "--context", "-l", "--length", "-o", "--offset",
                                 "-p", "--python", "--prompt", "--activators", "--app-data", "--discovery",
                                 "--creator", "--seeder", "--extra-search-dir", "--pip", "--setuptools",
                                 "--wheel"})


def missing_parents(path: str, cwd: str) -> list[str]:
    """The folders above ``path`` that do not exist yet, which ``mkdir -p`` makes: ``a/b/c`` →
    ``a/b``, ``a`` when neither exists (it stops at the first one that does)."""
    found = []
    head = os.path.dirname(path.rstrip("/"))
    while head and head not in ("/", ".", "..") and not os.path.lexists(os.path.join(cwd, os.path.expanduser(head))):
        found.append(head)
        head = os.path.dirname(head)
    return found


def _each(words: Sequence[Word]) -> list[Target]:
    return [(w, False) for w in words if w.literal != "-"]


NEW_NAME = "jupyter-agent-new-file"  # a file a program makes in a folder, under a name not known yet


def _inside(folders: Sequence[Word]) -> list[Target]:
    """New files inside each folder (``curl --output-dir D``, ``pip install --target D``): a name
    in it, not the folder itself (``.`` holds ``.git``; a new file does not touch it)."""
    return [(make_word(os.path.join(w.text, NEW_NAME)) if w.static else w, False) for w in folders]


def _suffixed(word: Word, suffix: str) -> Word:
    return make_word(word.text + suffix) if word.static else word


_UNIQ_VALUES = frozenset({"-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"})
_XXD_VALUES = frozenset({"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-o", "-offset", "-s", "-seek",
                         "-n", "-name"})
_ZIP_VALUES = frozenset({"-b", "-n", "-t", "-tt", "-P", "-s", "-sp", "-O", "--output-file", "-Z", "-ll"})
_SPLIT_VALUES = frozenset({"-a", "-b", "-C", "-l", "-n", "-t", "--additional-suffix", "--filter",
                           "--suffix-length", "--bytes", "--line-bytes", "--lines", "--number", "--separator"})
_CURL_FILES = (("o", "--output"), ("D", "--dump-header"), ("c", "--cookie-jar"), ("", "--trace"),
               ("", "--trace-ascii"), ("", "--stderr"), ("", "--libcurl"), ("", "--etag-save"))
_WGET_FILES = (("O", "--output-document"), ("o", "--output-file"), ("a", "--append-output"),
               ("", "--save-cookies"))
_SCRIPT_VALUES = frozenset({"-c", "--command", "-E", "--echo", "-B", "--log-io", "-I", "--log-in", "-O",
                            "--log-out", "-T", "--log-timing", "-m", "--logging-format"})
_SCRIPT_LOGS = (("B", "--log-io"), ("I", "--log-in"), ("O", "--log-out"), ("T", "--log-timing"))
_TAR_LETTERS_WITH_VALUE = frozenset("bfCFgHKLNTVX")  # old-style letters that take the next words in turn


def _tar(args: Sequence[Word]) -> list[Target]:
    """``tar c…f ARCHIVE`` (create, append, update): the archive is written."""
    fixed = [w.literal for w in args if w.literal is not None]
    if not tar_creates(fixed):
        return []
    found = option_arguments(args, "f", "--file")
    first = args[0].literal if args else None
    if first and first[:1] != "-" and "f" in first:  # old style: czf ARCHIVE, cbf 20 ARCHIVE
        taking = [c for c in first if c in _TAR_LETTERS_WITH_VALUE]
        at = 1 + taking.index("f")
        if at < len(args):
            found.append(args[at])
    return _each(found)


def _compressed(program: str, args: Sequence[Word]) -> list[Target]:
    """``gzip F`` replaces F by F.gz (``gunzip F.gz`` by F); ``zstd F -o OUT`` writes OUT."""
    if any(w.literal in _TO_STDOUT or _cluster_has(w.literal, "cltV") for w in args):
        return []
    outputs = option_arguments(args, "o", "--output")
    if outputs:
        return _each(outputs)
    if any(lists_files(program, w.literal) for w in args):  # echo .git/config | xz --files
        return _each([_LISTED_FILE])
    operands = _operands(args, {"-S", "--suffix", "-D", "-o", "-T", "--threads"})
    if program in RECURSIVE_COMPRESSORS and compresses_recursively(args):  # gzip -r .: every file below
        return [(w, True) for w in operands if w.literal != "-"]
    return _each(operands) + _each([w for w in map(_renamed(program, args), operands) if w is not None])


# the files xz --files[=F] / zstd --filelist F take from a list (each replaced by F.xz, or F.zst
# beside each): names only known at run time
_LISTED_FILE = make_word(run_time_word("LISTED_FILE", quoted=False), False)


# what compressing adds to a name, and what decompressing takes off (``.tgz`` becomes ``.tar``)
_COMPRESSED_SUFFIX = {"gzip": ".gz", "pigz": ".gz", "bzip2": ".bz2", "xz": ".xz", "lzma": ".lzma", "zstd": ".zst",
                      "lz4": ".lz4", "brotli": ".br", "compress": ".Z"}
_UNPACKERS = {"gunzip": "gzip", "bunzip2": "bzip2", "unxz": "xz", "unlzma": "lzma", "unzstd": "zstd", "unpigz": "pigz",
              "unlz4": "lz4", "uncompress": "compress"}
_DECOMPRESSED = {".gz": "", ".z": "", "-gz": "", "-z": "", "_z": "", ".tgz": ".tar", ".taz": ".tar", ".bz2": "",
                 ".bz": "", ".tbz2": ".tar", ".tbz": ".tar", ".xz": "", ".txz": ".tar", ".lzma": "", ".tlz": ".tar",
                 ".zst": "", ".tzst": ".tar", ".lz4": "", ".br": ""}


def _renamed(program: str, args: Sequence[Word]) -> Callable[[Word], Word | None]:
    """``gzip F`` writes ``F.gz``; ``gunzip F.gz``/``xz -d F.xz``/``zstd -d F.zst`` write ``F``
    (``-S SUF``: that suffix too).  The function maps an operand to the name written."""
    base = _UNPACKERS.get(program, program)
    unpacks = program in _UNPACKERS or any(
        w.literal in ("--decompress", "--uncompress") or _cluster_has(w.literal, "d") for w in args)
    suffixes = [s.literal for s in option_arguments(args, "S", "--suffix") if s.literal]

    def written(word: Word) -> Word | None:
        text = word.literal
        if text is None:
            return None
        if not unpacks:
            return make_word(text + (suffixes[-1] if suffixes else _COMPRESSED_SUFFIX.get(base, ".gz")))
        for suffix in [*suffixes, *_DECOMPRESSED]:
            if text.lower().endswith(suffix.lower()) and len(text) > len(suffix):
                return make_word(text[: -len(suffix)] + _DECOMPRESSED.get(suffix, ""))
        return None

    return written


def _cluster_has(text: str | None, letters: str) -> bool:
    return text is not None and text[:1] == "-" and text[1:2] != "-" and any(c in letters for c in text[1:])


_RSYNC_VALUES = frozenset({"-e", "--rsh", "-f", "--filter", "--exclude", "--include", "--exclude-from",
                           "--include-from", "--files-from", "-T", "--temp-dir", "--partial-dir", "-B",
                           "--block-size", "--port", "--log-file", "--password-file", "--backup-dir",
                           "--write-batch", "--only-write-batch", "--read-batch",
                           "--compare-dest", "--link-dest", "--copy-dest", "--suffix", "-M", "--remote-option",
                           "--chmod", "--chown", "--usermap", "--groupmap", "--timeout", "--contimeout",
                           "--max-size", "--min-size", "--bwlimit", "--out-format", "--info", "--debug",
                           "--iconv", "--protocol", "--max-delete", "--modify-window", "--sockopts"})
_SCP_VALUES = frozenset({"-c", "-F", "-i", "-J", "-l", "-o", "-P", "-S", "-D", "-X"})


def _copied(program: str, args: Sequence[Word]) -> list[Target]:
    """``rsync``/``scp`` … ``DEST``: a local destination receives everything copied."""
    operands = _operands(args, _RSYNC_VALUES if program == "rsync" else _SCP_VALUES)
    found: list[Target] = []
    if len(operands) > 1 and _local(operands[-1]):
        found.append((operands[-1], False))  # what lands inside a folder: copy_guard
        if program == "rsync" and any(w.literal in _RSYNC_DELETES for w in args):
            found.extend(_purged(operands[:-1], operands[-1]))
    if program == "rsync":
        if len(operands) > 1 and any(w.literal in _RSYNC_REMOVE_SOURCES for w in args):
            recursive = any(w.literal in ("--recursive", "--archive") or _cluster_has(w.literal, "ra") for w in args)
            found.extend((w, recursive) for w in operands[:-1] if _local(w))
        found.extend((w, False) for w in option_arguments(args, "", "--log-file"))
        found.extend(_inside(option_arguments(args, "", "--backup-dir")))
        for batch in ("--write-batch", "--only-write-batch"):  # FILE and the FILE.sh that replays it
            found.extend((w, False) for found_word in option_arguments(args, "", batch)
                         for w in (found_word, _suffixed(found_word, ".sh")))
    return found


_RCLONE_REMOVERS = frozenset({"delete", "purge", "rmdirs", "dedupe"})


def _rclone_removed(args: Sequence[Word]) -> list[Target]:
    """``rclone delete|purge|rmdirs|dedupe PATH``: a local PATH (rclone takes one like a remote)
    loses what is below it.  Every word that is no option counts, an option's value too (its
    flags are many, some take a value): `rclone purge --fast-list .` purges ``.``."""
    words = [w for w in args if (w.literal or "")[:1] != "-"]
    if not words or words[0].literal not in _RCLONE_REMOVERS:
        return []
    return [(w, True) for w in words[1:] if w.literal is None or _local(w)]


# rsync takes no abbreviation of a long option (popt): these exact names remove files
_RSYNC_DELETES = frozenset({"--del", "--delete", "--delete-before", "--delete-during", "--delete-delay",
                            "--delete-after", "--delete-excluded", "--delete-missing-args"})
_RSYNC_REMOVE_SOURCES = frozenset({"--remove-source-files", "--remove-sent-files"})


def _purged(sources: Sequence[Word], dest: Word) -> list[Target]:
    """``rsync --delete SRC… DEST``: what each source's copy lands in loses everything the source
    lacks (``rsync -a --delete empty/ .`` empties ``.``, its ``.git`` too).  A source ending in
    ``/`` (or ``.``) fills DEST itself; another one DEST/its name."""
    found: list[Target] = []
    for source in sources:
        text = source.literal
        if text is None or not dest.static:
            found.append((dest, True))  # where it lands is known only at run time: all of DEST
            continue
        name = os.path.basename(text.partition(":")[2] if not _local(source) else text)
        landing = dest.text if name in ("", ".", "..") else os.path.join(dest.text, name)
        found.append((make_word(landing), True))
    return found


def _local(word: Word) -> bool:
    """Not ``host:path`` nor ``rsync://…`` (a ``:`` after a ``/`` is part of a local name)."""
    text = word.text
    colon = text.find(":")
    return colon < 0 or 0 <= text.find("/") < colon


def _mktemp(args: Sequence[Word]) -> list[Target]:
    """``mktemp -p DIR`` / ``--tmpdir=DIR`` makes a new file or folder in DIR; a template
    operand names it (``mktemp /x/fileXXX``)."""
    folders = option_arguments(args, "p", "--tmpdir")
    templates = _operands(args, {"-p", "--suffix"})
    if folders and templates and templates[0].static:
        base = folders[0].text
        return [(make_word(os.path.join(base, templates[0].text)), False)]
    return _inside(folders) + _each(templates)


_PIP_FOLDERS = (("t", "--target"), ("", "--prefix"), ("", "--root"), ("", "--src"), ("d", "--dest"),
                ("w", "--wheel-dir"), ("", "--cache-dir"))
_PIP_FILES = (("", "--log"), ("", "--report"))


def _pip(args: Sequence[Word]) -> list[Target]:
    """``pip install --target DIR`` (``--prefix``, ``--root``, ``--src``), ``pip download -d DIR``,
    ``pip wheel -w DIR``: the folder receives what is installed or downloaded."""
    return _inside([w for letter, long in _PIP_FOLDERS for w in option_arguments(args, letter, long)]) + _each(
        [w for letter, long in _PIP_FILES for w in option_arguments(args, letter, long)])


_PYTEST_FILES = ("--junitxml", "--junit-xml", "--resultlog", "--result-log", "--report-log", "--log-file")


def _pytest(args: Sequence[Word]) -> list[Target]:
    """``pytest --basetemp=DIR`` (removed and made again: everything below it), the reports and
    logs it writes (``--junitxml F``, ``--report-log F``, ``--log-file F``, ``--debug=F``), its
    cache folder (``-o cache_dir=D``) and coverage reports (``--cov-report=html:D``)."""
    if not any(w.literal is None or w.literal.startswith(("--", "-o")) for w in args):
        return []  # `pytest -q tests/test_x.py`: none of these options (the common line)
    found: list[Target] = [(w, True) for w in option_arguments(args, "", "--basetemp")]
    found.extend(_each([w for long in _PYTEST_FILES for w in option_arguments(args, "", long)]))
    for word in args:
        text = word.literal or ""
        if text.startswith("--debug="):
            found.append((make_word(text[len("--debug="):]), False))
    for value in option_arguments(args, "o", "--override-ini"):
        name, equals, setting = (value.literal or "").partition("=")
        if value.literal is None or (equals and name.strip() == "cache_dir"):
            found.append((make_word(setting) if value.literal is not None else value, True))
        elif equals and name.strip() == "addopts":  # -o addopts='--basetemp=…': options as given
            try:
                found.extend(_pytest([make_word(w) for w in shlex.split(setting)]))
            except ValueError:
                found.append((make_word(setting, static=False), False))
    for value in option_arguments(args, "", "--cov-report"):
        kind, colon, target = (value.literal or "").partition(":")
        if value.literal is None or (colon and target):
            found.append((make_word(target) if value.literal is not None else value, kind == "html"))
    return found


def _git(words: Sequence[Word]) -> list[Target]:
    """``git diff|log|show|format-patch … --output=F``, ``archive -o F``, ``format-patch -o DIR``,
    ``bundle create F``, ``clone URL DIR``, ``init DIR``, ``worktree add DIR``; relative to
    ``-C DIR`` when given."""
    options, at = git_global_options(words)
    if at >= len(words) or words[at].literal is None:
        return []
    sub, rest = words[at].literal, list(words[at + 1:])
    found = [(w, False) for w in option_arguments(rest, "", "--output")]
    if sub == "archive":
        found.extend((w, False) for w in option_arguments(rest, "o"))
    elif sub == "format-patch":
        found.extend(_inside(option_arguments(rest, "o", "--output-directory")))
    elif sub == "bundle" and rest and rest[0].literal == "create":
        found.extend((w, False) for w in _operands(rest[1:], {"--version"})[:1])
    elif sub == "clone":
        operands = _operands(rest, _GIT_CLONE_VALUES)
        found.extend((w, True) for w in operands[1:2])
    elif sub == "init":
        found.extend((w, True) for w in _operands(rest, {"--template", "--separate-git-dir", "-b",
                                                         "--initial-branch", "--object-format"})[:1])
    elif sub == "config" and config_writes(rest):  # git config -f F KEY VALUE writes F
        found.extend((w, False) for w in option_arguments(rest, "f", "--file"))
    elif sub == "worktree" and rest and rest[0].literal == "add":
        found.extend((w, True) for w in _operands(rest[1:], {"-b", "-B", "--reason"})[:1])
    elif sub == "worktree" and rest and rest[0].literal in ("remove", "move"):  # the folder (and where it goes)
        found.extend((w, True) for w in _operands(rest[1:], frozenset())[:2])
    folders = [value for name, value in options if name == "-C" and value is not None]
    if not folders:
        return found
    if not all(f.static for f in folders):
        return [(folders[0], True)] if found else []  # somewhere only known at run time
    base = os.path.join(*(f.text for f in folders))
    return [(make_word(os.path.join(base, w.text)) if w.static else w, recursive) for w, recursive in found]


_GIT_CLONE_VALUES = frozenset({"-o", "--origin", "-b", "--branch", "-u", "--upload-pack", "--template",
                               "--reference", "--reference-if-able", "-c", "--config", "--depth",
                               "--shallow-since", "--shallow-exclude", "--separate-git-dir", "-j", "--jobs",
                               "--filter", "--server-option", "--bundle-uri"})


__all__ = ["OPTION_WRITERS", "missing_parents", "option_written", "writes_by_option"]
