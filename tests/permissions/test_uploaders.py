"""Cloud and deploy tools that send a local folder away whole (``uploaders.py``): under
``Read(./.env)`` denied and a rule allowing the tool, ``aws s3 sync . s3://b``,
``huggingface-cli upload repo .``, ``kaggle datasets create -p .`` and the like uploaded ``.env``.
They read every file below the folder, as ``tar cf - .`` does, so they ask; a folder without a
denied file, a download and a listing run."""

from __future__ import annotations

import pytest

from jupyter_agent.permissions.bash_words import Word
from jupyter_agent.permissions.uploaders import uploaded_folders
from tests.permissions.conftest import verdict_name
from tests.permissions.tools import decide_bash, make_ctx

PROGRAMS = ("aws", "gsutil", "gcloud", "rclone", "huggingface-cli", "hf", "kaggle", "az", "netlify", "vercel",
            "fly", "wandb", "mlflow", "kubectl", "npm", "croc", "wormhole", "buildah", "kaniko", "railway", "heroku",
            "borg", "restic", "duplicity", "s3cmd", "azcopy", "mc", "b2")
ROWS = [
    ("aws s3 sync . s3://b", "ask"), ("aws s3 cp . s3://b --recursive", "ask"), ("gsutil -m cp -r . gs://b", "ask"),
    ("gsutil rsync -r . gs://b", "ask"), ("gcloud storage cp -r . gs://b", "ask"), ("rclone copy . remote:b", "ask"),
    ("huggingface-cli upload user/repo .", "ask"), ("hf upload user/repo", "ask"),
    ("kaggle datasets create -p .", "ask"), ("kaggle kernels push", "ask"),
    ("az storage blob upload-batch -s . -d c", "ask"), ("netlify deploy --dir .", "ask"), ("vercel", "ask"),
    ("fly deploy", "ask"), ("wandb artifact put .", "ask"), ("mlflow artifacts log-artifacts --local-dir .", "ask"),
    ("kubectl create configmap c --from-file=.", "ask"), ("npm publish", "ask"),
    ("aws s3 sync sub s3://b", "allow"), ("aws s3 cp a.py s3://b", "allow"), ("aws s3 ls s3://b", "allow"),
    ("huggingface-cli upload user/repo sub", "allow"), ("gsutil cp a.py gs://b", "allow"), ("npm install", "allow"),
    ("kubectl get pods", "allow"),
    # session 28: builds sent to a cloud, peer-to-peer transfers, backups, object stores
    ("gcloud builds submit .", "ask"), ("gcloud builds submit --tag gcr.io/p/app", "ask"),
    ("gcloud run deploy svc --source .", "ask"), ("gcloud app deploy", "ask"), ("az acr build -r reg -t app .", "ask"),
    ("croc send .", "ask"), ("wormhole send .", "ask"), ("buildah bud .", "ask"), ("kaniko --context .", "ask"),
    ("railway up", "ask"), ("heroku builds:create", "ask"), ("borg create repo::x .", "ask"),
    ("restic backup .", "ask"), ("duplicity . file:///tmp/b", "ask"), ("s3cmd sync . s3://b", "ask"),
    ("azcopy copy . https://x.blob.core.windows.net/c", "ask"), ("mc mirror . minio/b", "ask"), ("b2 sync . b2://b", "ask"),
    ("gcloud builds list", "allow"), ("gcloud run deploy svc --image gcr.io/p/app", "allow"), ("croc send sub", "allow"),
    ("restic backup sub", "allow"), ("restic snapshots", "allow"), ("s3cmd get s3://b/x .", "allow"),
    ("duplicity restore file:///tmp/b restored", "allow"), ("mc ls minio/b", "allow"),
]


@pytest.mark.parametrize(("command", "expected"), ROWS)
async def test_a_folder_sent_away_with_a_denied_file_asks(world, command, expected):
    (world.project / "sub" / "model.bin").write_text("x")
    ctx = make_ctx(world.project, allow=tuple(f"Bash({p}:*)" for p in PROGRAMS), deny=("Read(./.env)",))
    assert verdict_name(await decide_bash(ctx, command)) == expected, command


@pytest.mark.parametrize(("line", "folders"), [
    ("aws s3 sync ./data s3://b/x", ["./data"]), ("aws s3 sync s3://b ./data", []),
    ("aws s3 cp ./d s3://b", []),  # one file (checked as a named path)
    ("rclone sync ./a:b remote:x", ["./a:b"]), ("rclone copy remote:x ./d", []),
    ("kaggle datasets version -p out -m msg", ["out"]), ("kaggle datasets version --path=out", ["out"]),
    ("kubectl create secret generic s --from-file=key=./keys", ["./keys"]), ("vercel deploy site", ["site"]),
])
def test_uploaded_folders(line, folders):
    assert uploaded_folders([Word(w) for w in line.split()]) == folders
