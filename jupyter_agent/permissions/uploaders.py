"""The local folders cloud and deploy tools send away whole: ``aws s3 sync . s3://b``,
``gsutil -m cp -r . gs://b``, ``rclone copy . remote:b`` (``rclone cat .``, ``rclone serve http .``,
``rclone mount .``), ``huggingface-cli upload repo .``,
``kaggle datasets create -p .``, ``az storage blob upload-batch -s .``, ``netlify deploy --dir .``,
``vercel``, ``fly deploy``, ``wandb artifact put .``, ``mlflow artifacts log-artifacts
--local-dir .``, ``kubectl create configmap --from-file=.``, ``npm publish``, ``gcloud builds
submit``, ``gcloud run deploy --source .``, ``az acr build .``, ``croc send .``, ``buildah bud .``,
``railway up``, ``restic backup .``, ``kopia snapshot create .``, ``rdiff-backup . /b``, ``unison . /b``,
``s3cmd sync . s3://b``, ``mc mirror . minio/b``,
``sky launch --workdir .``, ``ray job submit --working-dir .``.  Like ``tar cf - .`` they read
every file below the folder, so a Read deny rule there asks (``bash_arguments.copy_check``); a
single file they name is checked as any named path is.  Where a tool takes its folder from a
settings file or the current folder, ``.`` stands for it (the whole project).
"""

from __future__ import annotations

from collections.abc import Sequence

from .bash_words import Word

UPLOADERS = frozenset({"aws", "gsutil", "gcloud", "rclone", "huggingface-cli", "hf", "kaggle", "az", "netlify",
                       "vercel", "fly", "flyctl", "surge", "firebase", "wandb", "mlflow", "kubectl", "npm", "pnpm",
                       "yarn", "croc", "wormhole", "buildah", "kaniko", "executor", "railway", "heroku", "borg",
                       "restic", "duplicity", "s3cmd", "azcopy", "mc", "b2", "sky", "ray", "kopia", "rdiff-backup",
                       "unison"})
# options of the newer entries that take no value (any other option is read as taking one)
_FLAGS = frozenset({"--async", "--no-cache", "--suppress-logs", "--quiet", "-q", "--verbose", "-v", "--yes", "-y",
                    "--recursive", "-r", "--dry-run", "-n", "--detach", "-d", "--ci", "--one-file-system",
                    "--progress", "-p", "--stats", "-s", "--allow-unauthenticated", "--no-promote", "--zip"})
_REMOTE_PREFIXES = ("s3://", "gs://", "az://", "http://", "https://")


def uploaded_folders(words: Sequence[Word]) -> list[str]:
    """The fixed local paths ``words`` (program first) upload with everything below them."""
    program = words[0].literal if words else None
    texts = [w.literal or "" for w in words[1:]]
    plain = [t for t in texts if t and t[:1] != "-"]
    flags = {t.partition("=")[0] for t in texts if t[:1] == "-"}
    if program == "aws" and plain[:1] == ["s3"] and len(plain) > 2:
        if plain[1] == "sync" or (plain[1] in ("cp", "mv") and "--recursive" in flags):
            return _local(plain[2:3])
    elif program == "gsutil" or (program == "gcloud" and plain[:1] == ["storage"]):
        rest = plain[1:] if program == "gcloud" else plain
        recursive = bool(flags & {"-r", "-R", "--recursive"}) or any(t[:1] == "-" and t[1:2] != "-" and
                                                                      ("r" in t or "R" in t) for t in texts)
        if rest[:1] == ["rsync"] or (rest[:1] in (["cp"], ["mv"]) and recursive):
            return _local(rest[1:-1])
    elif program == "rclone" and plain[:1] and plain[0] in ("copy", "sync", "move", "copyto", "moveto", "bisync"):
        return [p for p in plain[1:2] if not _rclone_remote(p)]
    elif program == "rclone" and plain[:1] in (["cat"], ["serve"], ["mount"], ["nfsmount"]):
        # cat prints every file below a folder; serve and mount hand them to whoever asks.  Every
        # local word counts (an option's value among them: `serve http --addr :8080 .`)
        return [p for p in plain[2 if plain[0] == "serve" else 1:] if not _rclone_remote(p)]
    elif program in ("huggingface-cli", "hf") and plain[:1] in (["upload"], ["upload-large-folder"]):
        return plain[2:3] or ["."]  # without a local path: the folder named as the repository, or this one
    elif program == "kaggle" and plain[1:2] in (["create"], ["version"], ["push"]):
        return _values(texts, ("-p", "--path")) or ["."]
    elif program == "az" and plain[:1] == ["storage"] and any(p.endswith(("upload-batch", "sync")) for p in plain):
        return _values(texts, ("-s", "--source"))
    elif program in ("netlify", "firebase") and plain[:1] == ["deploy"]:
        return _values(texts, ("-d", "--dir")) or ["."]
    elif program in ("vercel", "surge"):
        return [p for p in plain if p not in ("deploy", "--prod")][:1] or ["."]
    elif program in ("fly", "flyctl") and plain[:1] == ["deploy"]:
        return plain[1:2] or ["."]
    elif program == "wandb" and plain[:2] == ["artifact", "put"]:
        return plain[2:3]
    elif program == "mlflow" and plain[:2] == ["artifacts", "log-artifacts"]:
        return _values(texts, ("-l", "--local-dir"))
    elif program == "kubectl" and plain[:1] == ["create"] and plain[1:2] in (["configmap"], ["secret"], ["cm"]):
        return [v.partition("=")[2] or v for v in _values(texts, ("--from-file",))]
    elif program in ("npm", "pnpm", "yarn") and plain[:1] in (["publish"], ["pack"]):
        return plain[1:2] or ["."]  # the package folder, as its files list and ignore files leave it
    else:
        return _more(program, texts)
    return []


def _more(program: str | None, texts: Sequence[str]) -> list[str]:
    """Builds sent to a cloud, peer-to-peer transfers, backups and object-store copies: the local
    folder or files they send (their operands read with ``_operands``)."""
    operands = _operands(texts)
    if program == "gcloud":
        if operands[:2] == ["builds", "submit"]:
            return operands[2:3] or ["."]  # the source folder, this one by default
        if operands[:2] in (["run", "deploy"], ["functions", "deploy"]):
            return _values(texts, ("--source",)) or (["."] if operands[:1] == ["functions"] else [])
        if operands[:2] == ["app", "deploy"]:
            return ["."]  # the app's folder
    elif program == "az" and operands[:2] == ["acr", "build"]:
        return _local(operands[2:][-1:]) or ["."]
    elif program in ("croc", "wormhole") and operands[:1] == ["send"]:
        return operands[1:]
    elif program == "buildah" and operands[:1] in (["bud"], ["build"], ["build-using-dockerfile"]):
        return operands[1:][-1:] or ["."]
    elif program in ("kaniko", "executor"):
        return [v.removeprefix("dir://") for v in _values(texts, ("-c", "--context"))] or ["."]
    elif program == "railway" and operands[:1] == ["up"]:
        return operands[1:2] or ["."]
    elif program == "sky" and operands[:1] in (["launch"], ["exec"], ["jobs"], ["spot"]):
        return _values(texts, ("--workdir",))  # synced to the cluster (a task YAML's workdir: not read)
    elif program == "ray" and operands[:2] == ["job", "submit"]:
        return _values(texts, ("--working-dir",))  # sent to the cluster with the job
    elif program == "heroku" and operands[:1] == ["builds:create"]:
        return _values(texts, ("--dir",)) or ["."]
    elif program == "borg" and operands[:1] == ["create"]:
        return operands[2:]  # REPO::ARCHIVE PATH…
    elif program == "restic" and operands[:1] == ["backup"]:
        return operands[1:]
    elif program == "kopia" and operands[:2] in (["snapshot", "create"], ["snap", "create"]):
        return operands[2:]
    elif program == "rdiff-backup":  # rdiff-backup [backup] SOURCE DEST (the other actions read backups)
        if operands[:1] == ["backup"]:
            return operands[1:2]
        return operands[:1] if len(operands) > 1 and operands[0] not in _RDIFF_ACTIONS else []
    elif program == "unison":  # unison ROOT1 ROOT2: each root is read whole (and written: bash_option_writes)
        return [p for p in operands[:2] if "://" not in p]
    elif program == "duplicity" and operands[:1] not in (["restore"], ["verify"], ["collection-status"],
                                                         ["list-current-files"], ["cleanup"], ["remove-older-than"]):
        rest = operands[1:] if operands[:1] in (["full"], ["incremental"], ["incr"], ["backup"]) else operands
        return [p for p in rest[:1] if "://" not in p]  # the source, unless it is the (URL) target
    elif program in ("s3cmd", "b2") and operands[:1] in (["sync"], ["put"], ["upload-file"], ["upload_file"]):
        return [p for p in _local(operands[1:-1]) if ":" not in p.partition("/")[0]]
    elif program in ("azcopy", "mc") and operands[:1] in (["copy"], ["cp"], ["sync"], ["mirror"]):
        return [p for p in operands[1:-1] if not p.startswith(_REMOTE_PREFIXES) and (program != "mc" or "/" in p or
                                                                                      p in (".", ".."))][:1]
    return []


_RDIFF_ACTIONS = frozenset({"restore", "list", "calculate", "compare", "info", "regress", "remove", "server", "test",
                            "verify", "complete"})


def _operands(texts: Sequence[str]) -> list[str]:
    """The words that are no option and no option's value (an option not in ``_FLAGS`` and
    without ``=`` takes the next word)."""
    found: list[str] = []
    skip = False
    for text in texts:
        if skip:
            skip = False
        elif text[:1] == "-" and text != "-":
            skip = "=" not in text and text not in _FLAGS
        elif text:
            found.append(text)
    return found


def _local(paths: Sequence[str]) -> list[str]:
    return [p for p in paths if not p.startswith(_REMOTE_PREFIXES)]


def _rclone_remote(path: str) -> bool:
    """``remote:path`` (a ``:`` before any ``/``) is a remote; ``./a:b`` and ``/x`` are local."""
    colon = path.find(":")
    return colon > 0 and ("/" not in path[:colon])


def _values(texts: Sequence[str], names: tuple[str, ...]) -> list[str]:
    """The values of the options ``names``: ``-p DIR``, ``--path=DIR``, ``--path DIR``."""
    found: list[str] = []
    for i, text in enumerate(texts):
        name, equals, value = text.partition("=")
        if name in names:
            if equals:
                found.append(value)
            elif i + 1 < len(texts) and texts[i + 1]:
                found.append(texts[i + 1])
    return found


__all__ = ["UPLOADERS", "uploaded_folders"]
