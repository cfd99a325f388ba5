"""The table of programs that run a program their arguments name (``bash_runners.py`` reads it).

Per program, each subcommand path (``()`` for the program itself, ``("run",)`` for ``uv run``)
with how its options read: which take a value, which are flags, how many words come before the
command, which options take shell code, a command line or ``Key=Value`` settings, and what the
words after the positionals are (a command, shell code, or nothing that runs).  An option the
table does not name is read both ways by ``bash_runners``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Runner:
    values: frozenset[str] = frozenset()  # options known to take a separate value
    flags: frozenset[str] = frozenset()  # options known to take none
    positionals: int = 0  # words before the command: docker exec CONTAINER, direnv exec DIR
    shell: frozenset[str] = frozenset()  # options whose value is shell code: nix-shell --run
    command: frozenset[str] = frozenset()  # options after which the command starts: nix develop -c
    # the words from the first positional on: a "command", "shell" code, "none" (nothing runs),
    # "dashdash" (the command is what follows `--`: mise exec node@20 -- npm test), or "typed"
    # (keys typed into a shell: tmux send-keys 'rm x' Enter runs what is not known here)
    rest: str = "command"
    argv: frozenset[str] = frozenset()  # options whose value is a command line: rsync -e 'ssh -p 22'
    config: frozenset[str] = frozenset()  # options taking Key=Value settings: ssh -o ProxyCommand=…
    pairs: frozenset[str] = frozenset()  # options taking two values: bwrap --bind SRC DEST
    optional: int = 0  # positionals that may be left out: nvm exec [VERSION] CMD
    typed: frozenset[str] = frozenset()  # options whose words are typed into a shell: screen -X stuff '…'
    # shell or argv options whose value may start with a stage or protocol and a colon, which is
    # not part of the code: yt-dlp --exec 'before_dl:rm x', --downloader 'm3u8:aria2c'
    staged: frozenset[str] = frozenset()
    # the command's program may be a package at a version, run as its program: npx npm@10 pkg set
    packages: bool = False
    # the command runs on another machine (vagrant ssh -c, pdsh -w HOST): deny and ask rules see it,
    # nothing else here does (its paths, files and programs are that machine's)
    remote: bool = False


def _r(values: str = "", flags: str = "", positionals: int = 0, shell: str = "", command: str = "",
       rest: str = "command", argv: str = "", config: str = "", pairs: str = "", optional: int = 0,
       typed: str = "", staged: str = "", packages: bool = False, remote: bool = False) -> Runner:
    return Runner(frozenset(values.split()), frozenset(flags.split()), positionals,
                  frozenset(shell.split()), frozenset(command.split()), rest, frozenset(argv.split()),
                  frozenset(config.split()), frozenset(pairs.split()), optional, frozenset(typed.split()),
                  frozenset(staged.split()), packages, remote)


def _git_shell(options: str) -> Runner:
    return _r(shell=options, rest="none")


_UV = _r("--with --with-editable --with-requirements --python -p --package --extra --group --only-group "
         "--env-file --directory --project --index --default-index --index-url --extra-index-url --from",
         "--no-sync --frozen --locked --isolated --no-project --all-extras --no-dev -q --quiet -v --verbose "
         "--offline --no-cache -n")
_ENV_RUN = _r("-n --name -p --prefix --cwd -e --environment", "--no-capture-output --live-stream -v")
_NODE = _r("-p --package --prefix -w --workspace", "-y --yes --no --no-install -q --quiet", shell="-c --call",
           packages=True)
_CONTAINER = _r("-e --env --env-file -u --user -w --workdir -v --volume -p --publish --name --network "
                "--mount --platform -l --label --hostname -h --detach-keys",
                "-i -t -it -d --rm --privileged --interactive --tty --detach --init", 1,
                argv="--entrypoint")  # docker run --entrypoint rm img x runs rm
_KUBECTL = _r("-c --container -n --namespace --context --kubeconfig --image --target --profile --env --labels -l "
              "--overrides --restart --port --serviceaccount --copy-to --shell",
              "-i -t -it --stdin --tty -q --quiet --rm --command --attach --share-processes", 1)
_DISTROBOX = _r("-n --name -a --additional-flags", "-T --no-tty -nw --no-workdir -v --verbose --clean-path -r "
                "--root -d --dry-run", rest="dashdash")
_APPTAINER = _r("-B --bind --pwd -H --home -W --workdir --env --env-file -o --overlay --security --network "
                "--network-args -S --scratch --app --hostname --mount",
                "--nv --rocm -c --contain -C --containall -e --cleanenv -w --writable --writable-tmpfs -f "
                "--fakeroot -u --userns --no-home -i --ipc -p --pid --no-init --no-privs --keep-privs --compat "
                "--no-eval --nvccli", 1)
_SKY_VALUES = ("-c --cluster --workdir --cloud --region --zone --num-nodes --image-id --env --env-file --gpus "
               "--cpus --memory --instance-type --disk-size --disk-tier --ports -i --idle-minutes-to-autostop "
               "-n --name --secret --config --network-tier --job-recovery -p --priority")
_SKY_FLAGS = "--use-spot --down -y --yes -d --detach-run --dryrun --retry-until-up --fast --no-setup -s --async"
_LXC = _r("--env --cwd --user --group --mode --project", "-T -t --force-interactive --force-noninteractive", 1)
_PLAIN = _r()
_PARALLEL = _r("-j --jobs -S --sshlogin --joblog --results -a --arg-file --sshloginfile --slf --tmpdir --workdir "
               "--wd -E -d --delimiter --colsep -C --delay --timeout --retries --tag-string --id --jobs-per-host "
               "--env", "-k --keep-order -q --quote --pipe --pipepart --tag --bar --eta --progress -0 --null "
               "--semaphore --fg --bg --group --ungroup -u --line-buffer --lb -v --verbose --dry-run",
               rest="shell")
_MPI = _r("-n -np -c --np --host -H --hostfile --machinefile -machinefile --map-by --bind-to --rank-by -x "
          "--wdir -wdir --prefix --output-filename --report-bindings -ppn --ppn", "--oversubscribe --allow-run-as-root "
          "-q --quiet -v --verbose --tag-output --timestamp-output", pairs="--mca -mca --gmca -gmca")
_SLURM = _r("-J --job-name -p --partition -o --output -e --error -t --time -N --nodes -n --ntasks -c --cpus-per-task "
            "--mem -A --account -D --chdir -w --nodelist -G --gpus --gres -q --qos -C --constraint")
# Terminal multiplexers: a new session, window or pane runs its command through the shell;
# keys sent to a pane are typed into whatever runs there
_TMUX_NEW = _r("-c -e -F -n -s -t -x -y -f -l", "-d -A -D -E -P -X -h -v -b -a -k -Z -I", rest="shell")
_TMUX = (*(((sub,), _TMUX_NEW) for sub in ("new", "new-session", "new-window", "neww", "split-window", "splitw",
                                              "respawn-pane", "respawnp", "respawn-window", "respawnw",
                                              "display-popup", "popup")),
         *(((sub,), _r("-c -d -t", "-b -C -E", rest="shell")) for sub in ("run-shell", "run", "if-shell", "if",
                                                                             "pipe-pane", "pipep")),
         *(((sub,), _r("-t -N -c", "-F -H -K -l -M -R -X", rest="typed")) for sub in ("send-keys", "send")))
_SCREEN = _r("-S -c -t -h -p -T -e -Logfile -s", "-d -m -D -R -L -A -a -q -U -i -l -O -f -r -x -dm",
             typed="-X")
_TORCHRUN = _r("--nproc_per_node --nproc-per-node --nnodes --node_rank --node-rank --master_addr --master-addr "
               "--master_port --master-port --rdzv_backend --rdzv-backend --rdzv_endpoint --rdzv-endpoint "
               "--rdzv_id --rdzv-id --max_restarts --max-restarts --monitor_interval --log_dir --log-dir "
               "-r --redirects -t --tee --local_addr --local-addr",
               "--standalone --no-python --no_python -m --module --run_path --run-path")
_MISE = _r("-j --jobs -C --cd -E --env", "--raw -y --yes -q --quiet -v --verbose", shell="-c --command",
           rest="dashdash")
# yt-dlp runs --exec's shell code after each download and --downloader's program; what the
# downloader's and postprocessors' arguments, a postprocessor plugin or a config file run is not
# read here
_YT_DLP = _r("-o --output -P --paths -a --batch-file -f --format -r --limit-rate -R --retries --proxy "
             "--cookies --user-agent --referer --add-header -u --username -p --password",
             "-q --quiet -v --verbose -s --simulate -x --extract-audio -k --keep-video --no-playlist "
             "--yes-playlist -i --ignore-errors --restrict-filenames -w --no-overwrites -c --continue",
             shell="--exec --exec-before-download", argv="--downloader --external-downloader", rest="none",
             typed="--downloader-args --external-downloader-args --postprocessor-args --ppa "
                   "--use-postprocessor --config-locations --plugin-dirs",
             staged="--exec --downloader --external-downloader")
_NIX = _r("-I --arg --argstr --expr -E", "--pure --impure", shell="--run --command", rest="none")  # -p takes
# several packages; nix-shell's operands are files: only --run/--command run something

# (program, words that select running) → how the command is found after them.  The words may
# have options before them (``uv --quiet run``, ``docker --context x exec``).
RUNNERS: dict[str, tuple[tuple[tuple[str, ...], Runner], ...]] = {
    "uv": ((("run",), _UV), (("tool", "run"), _UV)),
    "uvx": (((), _UV),),
    "pipx": ((("run",), _r("--spec --python --pip-args", "--no-cache --system-site-packages")),),
    "poetry": ((("run",), _r("-C --directory -P --project")),),
    "pipenv": ((("run",), _PLAIN),),
    "pdm": ((("run",), _r("-p --project")),),
    "hatch": ((("run",), _r("-e --env")),),
    "rye": ((("run",), _PLAIN),),
    "pixi": ((("run",), _r("-e --environment --manifest-path")),
             (("exec",), _r("-s --spec -c --channel --platform", "--force-reinstall --list"))),
    # dvc run / dvc stage add: the stage's command (shell code; --run or dvc repro runs it)
    "dvc": tuple((path, _r("-n --name -d --deps -o --outs -O --outs-no-cache -p --params -m --metrics "
                           "-M --metrics-no-cache --plots --plots-no-cache -w --wdir --desc --outs-persist "
                           "--outs-persist-no-cache --live -c --checkpoints",
                           "-f --force --no-exec --no-commit --always-changed --external --run -v -q --verbose "
                           "--quiet", rest="shell")) for path in (("run",), ("stage", "add"))),
    "conda": ((("run",), _ENV_RUN),),
    "mamba": ((("run",), _ENV_RUN),),
    "micromamba": ((("run",), _ENV_RUN),),
    "npx": (((), _NODE),),
    "pnpx": (((), _NODE),),
    "npm": ((("exec",), _NODE), (("x",), _NODE), (("explore",), _r("", "", 1, rest="shell"))),  # explore PKG -- CMD
    "pnpm": ((("exec",), _NODE), (("dlx",), _NODE)),
    "yarn": ((("exec",), _NODE), (("dlx",), _NODE)),
    "bunx": (((), _NODE),),
    "bun": ((("x",), _NODE), (("run",), _NODE)),
    "tox": ((("exec",), _r("-e --env -c --conf")),),
    "direnv": ((("exec",), _r("", "", 1)),),
    "docker": tuple((path, _CONTAINER) for path in (("exec",), ("run",), ("container", "exec"),
                                                    ("container", "run"), ("compose", "exec"),
                                                    ("compose", "run"))),
    "podman": ((("exec",), _CONTAINER), (("run",), _CONTAINER), (("container", "exec"), _CONTAINER),
               (("container", "run"), _CONTAINER), (("unshare",), _PLAIN)),
    "buildah": ((("unshare",), _PLAIN), (("run",), _r("-v --volume --workingdir --user --isolation --mount "
                                                        "-e --env --runtime --cap-add --cap-drop --network "
                                                        "--hostname", "-t --tty --terminal", 1))),
    "nerdctl": tuple((path, _CONTAINER) for path in (("exec",), ("run",), ("container", "exec"),
                                                     ("container", "run"), ("compose", "exec"),
                                                     ("compose", "run"))),
    # containerd: ctr run IMAGE ID CMD, ctr task exec --exec-id X CONTAINER CMD; crictl exec C CMD
    "ctr": ((("run",), _r("--mount --env --label --runtime --snapshotter --cwd --user -u --env-file",
                          "--rm -t --tty -d --detach --privileged --net-host", 2)),
            (("task", "exec"), _r("--exec-id --cwd --user -u", "-t --tty -d --detach", 1)),
            (("t", "exec"), _r("--exec-id --cwd --user -u", "-t --tty -d --detach", 1))),
    "crictl": ((("exec",), _r("--timeout", "-i --interactive -t --tty -s --sync", 1)),),
    # containers and machines of this computer that share its folders (the home folder, the project)
    "distrobox": tuple((path, _DISTROBOX) for path in (("enter",), ("ephemeral",))),
    "distrobox-enter": (((), _DISTROBOX),),
    "toolbox": ((("run",), _r("-c --container -d --distro -r --release")),),
    "flatpak-spawn": (((), _r("--env --directory --forward-fd --sandbox-expose --sandbox-expose-ro "
                              "--sandbox-expose-path --sandbox-expose-path-ro --sandbox-flag --app-path --usr-path",
                              "--host --watch-bus --expose-pids --share-pids --no-network --clear-env "
                              "--latest-version --sandbox -v --verbose")),),
    "flatpak": ((("run",), _r("--arch --branch --runtime --runtime-version --filesystem --env --cwd",
                              "--user --system -d --devel --sandbox", rest="none", argv="--command")),),
    "singularity": ((("exec",), _APPTAINER),),
    "apptainer": ((("exec",), _APPTAINER),),
    "guix": tuple((path, _r("-m --manifest -f --file -L --load-path -r --root -e --expression",
                            "-C --container -N --network --pure -P --link-profile -D --development --check -q",
                            rest="dashdash")) for path in (("shell",), ("environment",))),
    "with-contenv": (((), _PLAIN),),
    "lima": (((), _PLAIN),),
    "limactl": ((("shell",), _r("--workdir --shell", "--reconnect", 1)),),
    "multipass": ((("exec",), _r("-d --working-directory", "-n --no-map-working-directory", 1)),),
    "lxc": ((("exec",), _LXC),),
    "incus": ((("exec",), _LXC),),
    "minikube": ((("ssh",), _r("-n --node -p --profile", "--native-ssh", rest="shell")),),
    "colima": ((("ssh",), _r("-p --profile", rest="shell")),),
    # machines elsewhere: what runs there meets the deny and ask rules (remote=True), nothing else
    "autossh": (((), _r("-p -i -l -F -J -L -R -D -b -c -E -e -I -m -O -Q -S -W -w -B -M", rest="none",
                        config="-o")),),
    "mosh": (((), _r("-p --port --predict --family --bind-server --experimental-remote-ip --server",
                     "-a -n -4 -6 --local --no-init --no-ssh-pty", 1, argv="--ssh --client", remote=True)),),
    "pdsh": (((), _r("-w -x -l -t -u -f -R -g -X -F -M", "-S -b -d -N -Q -L -a -A", rest="shell",
                     remote=True)),),
    **{pssh: (((), _r("-h --hosts -H --host -l --user -p --par -o --outdir -e --errdir -t --timeout "
                      "-x --extra-args -X --extra-arg", "-v --verbose -A --askpass -i --inline -I --send-input "
                      "-P --print", config="-O --option", rest="shell", remote=True)),)
       for pssh in ("pssh", "parallel-ssh")},
    "vagrant": ((("ssh",), _r("", "-p --plain -t --tty", shell="-c --command", rest="dashdash", remote=True)),),
    "docker-machine": ((("ssh",), _r("", "", 1, remote=True)),),
    # a virtual machine's shell runs these (cloud_commands.py reads them; the table names the paths)
    "aws": ((("ssm", "send-command"), _r(rest="none", remote=True)),),
    "az": ((("vm", "run-command"), _r(rest="none", remote=True)),),
    # SkyPilot: sky exec CLUSTER CMD, sky launch CMD (a task YAML's setup and run: cluster_tasks.py)
    "sky": ((("exec",), _r(_SKY_VALUES, _SKY_FLAGS, 1, rest="shell", remote=True)),
            *((path, _r(_SKY_VALUES, _SKY_FLAGS, rest="shell", remote=True))
              for path in (("launch",), ("jobs", "launch"), ("spot", "launch")))),
    "gcloud": tuple((path, _r("--zone --project --ssh-key-file --strict-host-key-checking --worker",
                              "--internal-ip --tunnel-through-iap --dry-run --quiet -q", shell="--command",
                              rest="dashdash", remote=True))
                    for path in (("compute", "ssh"), ("compute", "tpus", "tpu-vm", "ssh"), ("cloud-shell", "ssh"),
                                 ("alpha", "cloud-shell", "ssh"))),
    **{fly: ((("ssh", "console"), _r("-a --app -s --select -r --region -u --user --machine -A --address "
                                     "-o --org", "--pty -q --quiet", shell="-C --command", rest="none",
                                     remote=True)),) for fly in ("fly", "flyctl")},
    "gh": tuple(((cs, "ssh"), _r("-c --codespace -R --repo --repo-owner --profile --server-port",
                                 "--config -d --debug --stdio", rest="dashdash", remote=True))
                for cs in ("codespace", "cs")),
    "heroku": tuple(((run,), _r("-a --app -r --remote -s --size -e --env --type",
                                "-x --exit-code --no-tty --no-notify", rest="shell", remote=True))
                    for run in ("run", "run:detached")),
    "rootlesskit": (((), _PLAIN),),
    "docker-compose": ((("exec",), _CONTAINER), (("run",), _CONTAINER)),
    "kubectl": ((("exec",), _KUBECTL), (("run",), _KUBECTL), (("debug",), _KUBECTL)),
    "oc": ((("exec",), _KUBECTL), (("run",), _KUBECTL), (("debug",), _KUBECTL), (("rsh",), _KUBECTL)),
    "nix-shell": (((), _NIX),),
    "nix": ((("develop",), _r(command="-c --command", rest="none")),  # nix develop .#dev -c cmd
            (("shell",), _r(command="-c --command", rest="none"))),
    "script": (((), _r("-T --log-timing -I --log-in -O --log-out -B --log-io -E --echo -m --logging-format "
                       "-o --output-limit", "-a --append -e --return -f --flush -q --quiet -t --timing",
                       shell="-c --command", rest="none")),),  # its operand is the typescript file
    "xvfb-run": (((), _r("-n --server-num -e --error-file -f --auth-file -p --xauth-protocol "
                         "-s --server-args -w --wait", "-a --auto-servernum -l --listen-tcp")),),
    "valgrind": (((), _PLAIN),),
    "firejail": (((), _PLAIN),),
    "fakeroot": (((), _r("-l --lib -s -i --faked", "-u --unknown-is-real")),),
    "eatmydata": (((), _PLAIN),),
    "nocache": (((), _PLAIN),),
    "proxychains": (((), _r("-f", "-q")),),
    "proxychains4": (((), _r("-f", "-q")),),
    "torsocks": (((), _r("-u --user -p --pass -a --address -P --port", "-i --isolate -q --quiet")),),
    "faketime": (((), _r("", "-f", 1)),),
    "dbus-run-session": (((), _PLAIN),),
    "catchsegv": (((), _PLAIN),),
    "chronic": (((), _r("", "-e -v")),),
    "ifne": (((), _r("", "-n")),),  # moreutils: runs the command when stdin is not empty
    "zrun": (((), _PLAIN),),  # moreutils: runs the command on uncompressed copies of its arguments
    # profilers that run the program they measure (session 44: each ran rm under Bash(rm:*))
    "py-spy": ((("record",), _r("-o --output -r --rate -d --duration -f --format -p --pid")),
               (("top",), _r("-r --rate -p --pid"))),
    "nsys": ((("profile",), _r("-o --output -t --trace -s --sample -d --duration -y --delay -e --env-var")),
             (("launch",), _r("-t --trace -e --env-var -s --sample"))),
    "ncu": (((), _r("-o --export -k --kernel-name -c --launch-count --set --section --metrics")),),
    "nvprof": (((), _r("-o --export-profile --log-file --metrics --events")),),
    "heaptrack": (((), _r("-o --output")),),
    # credential and secret injectors, daemons, servers that run a program per connection
    "krenew": (((), _r("-H -K -k -p -c", "-b -i -L -s -t -v")),),
    "k5start": (((), _r("-c -f -g -H -I -K -k -l -m -o -p -r -S", "-a -b -F -h -L -n -P -q -s -t -U -v -x",
                        optional=1)),),  # [PRINCIPAL] -- CMD
    "berglas": ((("exec",), _r("", "--local")),),
    "envchain": (((), _r("", "--noecho -n", 1)),),  # envchain NAMESPACE CMD
    "summon": (((), _r("-p --provider -f -e --environment -D", "--up --yaml --ignore-all")),),
    "daemon": (((), _r("-n --name -u --user -R --chroot -D --chdir -m --umask -e --env -l --errlog "
                       "-b --dbglog -o --output -O --stdout -E --stderr -P --pidfiles -F --pidfile")),),
    "tcpserver": (((), _r("-c -x -B -g -u -l -t -b -i", "-q -Q -v -1 -4 -6 -d -D -h -H -p -P -r -R -o -O", 2)),),
    "websocketd": (((), _r("--port --address --staticdir --cgidir --sameorigin --origin --header "
                           "--maxforks --passenv --reverselookup --ssl --sslcert --sslkey")),),
    # macOS: arch -x86_64 CMD, sandbox-exec -n PROFILE CMD, xcrun TOOL (Linux's arch takes no command)
    "arch": (((), _r("-e -arch", "-x86_64 -arm64 -arm64e -i386 -32 -64 -h")),),
    "sandbox-exec": (((), _r("-f -n -p -D")),),
    "xcrun": (((), _r("--sdk --toolchain", "-v --verbose -l --log -n --no-cache -r --run")),),
    # cargo watch -s CODE (shell code), cargo watch -- CMD (-x SUB runs `cargo SUB`, a cargo command)
    "cargo": ((("watch",), _r("-w --watch -i --ignore -d --delay --why -C --workdir --features -B -L --env-file "
                              "--use-shell -x --exec", "-c --clear -q --quiet --postpone --poll --no-vcs-ignores "
                              "--no-dot-ignores --skip-local-deps --no-restart --why", shell="-s --shell",
                              rest="dashdash")),),
    # Red Hat's scl enable COLLECTION… 'CODE' (or -- CMD): the command is shell code
    "scl": ((("enable",), _r("", "", 1, optional=3, rest="shell")),),
    # repo forall [PROJECT…] -c CODE: run through /bin/sh in each project
    "repo": ((("forall",), _r("-r --regex -i --inverse-regex -g --groups -j --jobs", "-p -v --verbose -e",
                              shell="-c --command", rest="none")),),
    "cronic": (((), _PLAIN),),
    "torify": (((), _r("-u --user -p --pass -a --address -P --port", "-i --isolate -q --quiet")),),
    "fakechroot": (((), _r("-e --environment -c --config-dir -l --lib -d --elfloader", "-s --use-system-libs")),),
    "schroot": (((), _r("-c --chroot -u --user -d --directory -n --session-name -o --option",
                        "-p --preserve-environment -q --quiet -v --verbose")),),
    "systemd-nspawn": (((), _r("-D --directory -i --image -M --machine -u --user --chdir -E --setenv "
                               "--bind --bind-ro -n")),),
    "lxc-attach": (((), _r("-n --name -P --lxcpath -a --arch -s --namespaces -v --set-var -u --uid -g --gid "
                           "-f --rcfile -o --logfile -l --logpriority",
                           "-e --elevated-privileges -R --remount-sys-proc --keep-env --clear-env")),),
    # IBM LSF: bsub [options] CMD (its -E/-Ep pre- and post-exec commands are shell code)
    "bsub": (((), _r("-q -n -J -o -oo -e -eo -W -R -M -P -G -m -w -i -cwd -app -sla -g -L -u -b -t -k -C -D -F "
                     "-S -T -U -v -We -Jd -Lp -ext", "-I -Ip -Is -K -N -B -r -rn -x -H", shell="-E -Ep")),),
    # daemontools and s6: the command after a user, a limit or a lock file runs as written
    "setuidgid": (((), _r("", "", 1)),),
    "s6-setuidgid": (((), _r("", "", 1)),),
    "envuidgid": (((), _r("", "", 1)),),
    "envdir": (((), _r("", "", 1)),),  # envdir DIR CMD: DIR's files become variables (bash_paths reads them)
    "s6-envdir": (((), _r("", "-I -i -f -L -n", 1)),),
    "setlock": (((), _r("", "-n -N -x -X", 1)),),  # setlock FILE CMD (creates FILE)
    "softlimit": (((), _r("-m -d -s -l -a -o -p -f -c -r -t")),),
    # a readline wrapper, bandwidth shapers, SOCKS wrappers, compiler caches and distributors:
    # the command runs as written
    "rlwrap": (((), _r("-b --break-chars -C --command-name -D --history-no-dupes -e --extra-char-after-completion "
                       "-f --file -F --history-format -g --forget-matching -H --history-filename "
                       "-l --logfile -M --multi-line-ext -O --only-cook -p --prompt-colour -P --pre-given "
                       "-q --quote-characters -s --histsize -S --substitute-prompt -t --set-term-name "
                       "-w --wait-before-prompt -z --filter",
                       "-A --ansi-colour-aware -c --complete-filenames -i --case-insensitive -m --multi-line "
                       "-n --no-warnings -N --no-children -o --one-shot -r --remember -R --renice "
                       "-U --mirror-arguments -v --version -W --polling")),),
    "trickle": (((), _r("-d -u -w -t -l -n", "-h -v -V -s")),),
    "tsocks": (((), _PLAIN),),
    "ccache": (((), _PLAIN),),
    "distcc": (((), _PLAIN),),
    "sccache": (((), _PLAIN),),
    # SELinux: runcon CONTEXT CMD, or runcon [-c] [-u U] [-r R] [-t T] [-l L] CMD
    "runcon": (((), _r("-u --user -r --role -t --type -l --range", "-c --compute", optional=1)),),
    "systemd-run": (((), _r("-p --property -u --unit --slice -E --setenv --working-directory")),),
    # GNU parallel and sem run their command through the shell; with none, the arguments after
    # ::: are the commands (bash_runners._parallel_arguments)
    "parallel": (((), _PARALLEL),),
    "sem": (((), _PARALLEL),),
    # other runners of a command per input line: rush (shell code), xe (a command; -s shell code),
    # BSD apply (shell code with %1 … for the arguments)
    "rush": (((), _r("-j --jobs -D --record-delimiter -d --field-delimiter -n --nrecords -t --timeout "
                     "-r --retries --retry-interval -c --continue -C --succeed-cmd-file -i --infile -o --outfile "
                     "-T --trim -V --verbose -e --stop-on-error -k --keep-order", "--dry-run -q --quiet",
                     rest="shell")),),
    "xe": (((), _r("-a -A -j -L -n -N -I -p -f", "-0 -F -R -q -v -k", shell="-s")),),
    "apply": (((), _r("-a -d", "", rest="shell")),),
    "bwrap": (((), _r("--dir --tmpfs --proc --dev --mqueue --remount-ro --unsetenv --chdir --uid --gid --hostname "
                      "--lock-file --sync-fd --info-fd --json-status-fd --block-fd --userns-block-fd --seccomp "
                      "--add-seccomp-fd --exec-label --file-label --cap-add --cap-drop --perms --size --args "
                      "--userns --userns2 --pidns --argv0",
                      "--unshare-all --share-net --unshare-user --unshare-user-try --unshare-ipc --unshare-pid "
                      "--unshare-net --unshare-uts --unshare-cgroup --unshare-cgroup-try --die-with-parent "
                      "--as-pid-1 --new-session --clearenv --disable-userns --assert-userns-disabled",
                      pairs="--bind --bind-try --dev-bind --dev-bind-try --ro-bind --ro-bind-try --symlink "
                            "--setenv --file --bind-data --ro-bind-data --chmod")),),
    "proot": (((), _r("-r --rootfs -b --bind -m --mount -q --qemu -w --pwd --cwd -k --kernel-release -i",
                      "-0 --root-id -v --verbose -R -S --link2symlink")),),
    "mpirun": (((), _MPI),),
    "mpiexec": (((), _MPI),),
    "srun": (((), _SLURM),),
    "salloc": (((), _SLURM),),
    "sbatch": (((), _r("-J --job-name -p --partition -o --output -e --error -t --time -N --nodes -n --ntasks "
                       "-c --cpus-per-task --mem -A --account -D --chdir", shell="--wrap", rest="none")),),
    "ip": ((("netns", "exec"), _r("", "", 1)), (("vrf", "exec"), _r("", "", 1))),
    "devbox": ((("run",), _r("-c --config -e --env --env-file")),),
    "bundle": ((("exec",), _PLAIN),),
    "composer": ((("exec",), _r("", "-l --list")),),  # composer exec CMD: vendor/bin first on PATH
    "rr": ((("record",), _PLAIN),),
    "volta": ((("run",), _r("--node --npm --pnpm --yarn --env", "--bundled-npm --no-yarn --verbose --quiet")),),
    "fnm": ((("exec",), _r("--using --shell --arch --log-level")),),
    "nvm": ((("exec",), _r("", "--silent", optional=1)), (("run",), _r("", "--silent", optional=1))),
    "mise": ((("exec",), _MISE), (("x",), _MISE)),
    "tmux": _TMUX,
    "byobu": _TMUX,
    "screen": (((), _SCREEN),),
    "zellij": ((("run",), _r("-n --name -c --cwd -d --direction", "-f --floating -i --in-place --close-on-exit "
                              "-s --start-suspended")),
               (("action", "write-chars"), _r(rest="typed")), (("action", "write"), _r(rest="typed"))),
    "abduco": (((), _r("-c -n -A -e -r", "-f -l -p -q")),),  # abduco -c NAME CMD
    "dtach": (((), _r("-n -c -A -a -N -e -r -E -z", "-R")),),  # dtach -n SOCKET CMD
    "xterm": (((), _r("-T -title -n -geometry -fa -fs -bg -fg", command="-e")),),
    "gnome-terminal": (((), _r("--title -t --working-directory --geometry", argv="-e --command",
                               command="-x --execute", rest="dashdash")),),
    "konsole": (((), _r("--workdir -p", command="-e")),),
    "alacritty": (((), _r("--working-directory -T --title --class", command="-e --command")),),
    "kitty": (((), _r("-T --title -d --directory --class -o --override")),),
    "wezterm": ((("start",), _r("--cwd --class --workspace", rest="dashdash")),),
    "tini": (((), _r("-p -e", "-s -v -vv -vvv -g -w -l")),),
    "dumb-init": (((), _r("-r --rewrite", "-c --single-child -v --verbose")),),
    "horovodrun": (((), _r("-np -H --hosts -hostfile --hostfile -p --ssh-port -i --ssh-identity-file "
                           "--network-interface --output-filename --start-timeout --log-level",
                           "--verbose --gloo --mpi --disable-cache")),),
    "ray": ((("exec",), _r("--run-env -n --cluster-name -p --port-forward", "--stop --start --screen --tmux "
                           "--no-config-cache --disable-usage-stats", 1, rest="shell", remote=True)),
            (("job", "submit"), _r("--address --working-dir --runtime-env --runtime-env-json --submission-id "
                                   "--entrypoint-num-cpus --entrypoint-num-gpus --entrypoint-memory "
                                   "--entrypoint-resources --metadata-json --headers", "--no-wait --verify",
                                   rest="dashdash")),),
    # launchers: the first operand is a Python script, or with --no-python a program
    "torchrun": (((), _TORCHRUN),),
    "torch.distributed.run": (((), _TORCHRUN),),  # python -m torch.distributed.run
    "accelerate": ((("launch",), _r("--config_file --num_processes --num_machines --machine_rank --main_process_ip "
                                    "--main_process_port --mixed_precision --gpu_ids --dynamo_backend",
                                    "--no_python -m --module --multi_gpu --cpu --use_deepspeed --use_fsdp")),),
    "deepspeed": (((), _r("--num_gpus --num_nodes --hostfile --include --exclude --master_port --master_addr "
                          "--launcher --launcher_args --node_rank", "--no_python --module --no_local_rank "
                          "--autotuning --force_multi --enable_each_rank_log")),),
    **{manager: ((("exec",), _PLAIN),) for manager in ("pyenv", "rbenv", "nodenv", "goenv", "jenv", "plenv",
                                                      "asdf")},
    "dotenv": (((), _r("-e -f --file -v")), (("run",), _r("-f --file"))),  # -c [env]: read both ways
    "op": ((("run",), _r("--env-file")),),
    "doppler": ((("run",), _r("-p --project -c --config")),),
    "infisical": ((("run",), _r("--env --path --projectId")),),
    "aws-vault": ((("exec",), _r("-d --duration -r --region", "-n --no-session", 1)),),
    # dotenvx run [-f FILE…] -- CMD (its -f/-e take several words: the command is after --, else
    # after the options); chamber exec SERVICE… -- CMD
    "dotenvx": ((("run",), _r("-f --env-file -fk --env-keys-file -e --env --convention",
                             "-q --quiet -v --verbose -d --debug --overload -o --strict --ignore --ops-off")),),
    "chamber": ((("exec",), _r("-b --backend -r --retries --kms-key-alias", "--pristine --strict -v --verbose",
                              rest="dashdash")),),
    # programs one of whose options runs a command (their other words run nothing)
    "tar": (((), _r("-f --file -C --directory -T --files-from -X --exclude-from", rest="none",
                    shell="-I --use-compress-program --to-command --info-script --new-volume-script -F "
                          "--rsh-command", config="--checkpoint-action")),),  # --checkpoint-action=exec=CODE
    "rsync": (((), _r(rest="none", argv="-e --rsh", shell="--rsync-path")),),
    "zip": (((), _r(rest="none", shell="-TT --unzip-command")),),
    "gpg": (((), _r(rest="none", shell="--photo-viewer")),),  # shown photo IDs open with that command line
    "gpg2": (((), _r(rest="none", shell="--photo-viewer")),),
    "split": (((), _r("-a --suffix-length -b --bytes -C --line-bytes -l --lines -n --number -t --separator "
                      "--additional-suffix", rest="none", shell="--filter")),),  # split --filter='CMD' f
    # latexmk's engine commands (%O, %S … are put in): -pdflatex='CMD %O %S'; -e CODE is Perl
    "latexmk": (((), _r(rest="none", shell=" ".join(f"-{engine} --{engine}" for engine in (
        "latex", "pdflatex", "lualatex", "xelatex", "dvilualatex")), typed="-e -r")),),
    "sort": (((), _r("-o --output -S --buffer-size -T --temporary-directory -t --field-separator -k --key",
                     rest="none", shell="--compress-program")),),
    "wget": (((), _r("-O --output-document -o --output-file", rest="none", shell="--use-askpass")),),
    "man": (((), _r(rest="none", shell="-P --pager -H --html")),),
    "mapfile": (((), _r("-d -n -O -s -u -c", rest="none", shell="-C")),),  # -C: code run every -c lines
    "readarray": (((), _r("-d -n -O -s -u -c", rest="none", shell="-C")),),
    "jobs": (((), _r(flags="-l -n -p -r -s", rest="none", command="-x")),),  # jobs -x CMD: runs CMD
    "rg": (((), _r(rest="none", argv="--pre")),),  # rg --pre PROG: runs PROG on every file it searches
    # a shared library the program loads (a PKCS#11 or FIDO provider, an OpenSSL engine or provider):
    # compiled code, whose commands are not known here
    "ssh-keygen": (((), _r(rest="none", typed="-D -w")),),
    "ssh-add": (((), _r(rest="none", typed="-s -e -S")),),
    "openssl": (((), _r(rest="none", typed="-engine -provider -provider-path")),),
    # commands that fetch a password or carry the connection (rclone, restic, borg), svn's helpers
    "rclone": (((), _r(rest="none", argv="--password-command --auth-proxy")),),
    "restic": (((), _r(rest="none", argv="--password-command", config="-o --option")),),  # -o sftp.command=…
    "borg": (((), _r(rest="none", argv="--rsh")),),
    "svn": (((), _r(rest="none", argv="--diff-cmd --diff3-cmd --editor-cmd", config="--config-option")),),
    "gallery-dl": (((), _r(rest="none", shell="--exec --exec-after")),),
    "transmission-cli": (((), _r(rest="none", argv="-f --finish")),),
    # ansible HOSTS -a ARGS: the shell, command or raw module runs ARGS there (localhost too)
    "ansible": (((), _r("-m --module-name -i --inventory -u --user -e --extra-vars -f --forks -l --limit "
                        "-c --connection -T --timeout -t --tree -P --poll -B --background --become-user",
                        "-b --become -K --ask-become-pass -k --ask-pass -o --one-line -v -vv -vvv --check -C",
                        rest="none", shell="-a --args")),),
    "sops": ((("exec-env",), _r("", "", 1, rest="shell")), (("exec-file",), _r("", "", 1, rest="shell"))),
    "machinectl": ((("shell",), _r("-E --setenv --uid", "-q --quiet", 1)),),  # machinectl shell [USER@]HOST CMD
    # watchers: run a command (through the shell) whenever files change
    "watchexec": (((), _r("-w --watch -W --watch-non-recursive -e --exts -f --filter -F --filter-file "
                          "-i --ignore --ignore-file -d --debounce --delay-run -s --signal --stop-signal "
                          "--stop-timeout --shell --workdir -E --env --project-origin --on-busy-update "
                          "--emit-events-to --log-file --timeout",
                          "-c --clear -r --restart -n -N --notify -o -p --postpone -q --quiet -v -vv -vvv "
                          "--no-vcs-ignore --no-project-ignore --no-global-ignore --no-default-ignore "
                          "--no-discover-ignore --print-events --wrap-process", rest="shell")),),
    "nodemon": (((), _r("-w --watch -e --ext -i --ignore -d --delay --signal --config", "-q --quiet -V --verbose "
                        "--legacy-watch -L --no-stdin --exitcrash", shell="-x --exec", rest="none")),),
    "watchmedo": ((("shell-command",), _r("-p --patterns -i --ignore-patterns -w --wait --timeout "
                                          "--debug-force-polling", "-R --recursive -D --ignore-directories "
                                          "--drop -q --quiet", shell="-c --command", rest="none")),
                  (("auto-restart",), _r("-d --directory -p --patterns -i --ignore-patterns --signal "
                                         "--kill-after --interval --debounce-interval", "-R --recursive "
                                         "-D --ignore-directories --no-restart-on-command-exit")),
                  (("tricks",), _r(rest="typed"))),  # a tricks file: its commands are not read here
    **{ptw: (((), _r("--ignore --ext --spool", "-c --clear -n --nobeep -w --wait -p --poll -v --verbose -q "
                     "--quiet", shell="--onpass --onfail --beforerun --afterrun --onexit", argv="--runner",
                     rest="none")),) for ptw in ("ptw", "pytest-watch")},
    "reflex": (((), _r("-r --regex -g --glob -R --inverse-regex -G --inverse-glob -d --decoration",
                       "-s --start-service --only-files --only-dirs --all -v --verbose",
                       rest="dashdash", typed="-c --config")),),
    "when-changed": (((), _r("", "-r -v -vv -1 -s -q", 1)),  # when-changed FILE CMD…
                     ((), _r("", "-r -v -vv -1 -s -q", command="-c", rest="none"))),  # FILE… -c CMD…
    "yt-dlp": (((), _YT_DLP),),
    "youtube-dl": (((), _YT_DLP),),
    "aria2c": (((), _r("-d --dir -o --out -i --input-file -l --log", rest="none",
                       argv="--on-download-complete --on-download-start --on-download-error --on-download-pause "
                            "--on-download-stop --on-bt-download-complete")),),
    # pandoc --filter PROG / --pdf-engine PROG run PROG (a Lua filter is code like a script's)
    "pandoc": (((), _r("-o --output -f --from -r --read -t --to -w --write -M --metadata -V --variable -L "
                       "--lua-filter --data-dir --template -H --include-in-header --resource-path -c --css",
                       rest="none", argv="--filter -F --pdf-engine")),),
    "ssh": (((), _r("-p -i -l -F -J -L -R -D -b -c -E -e -I -m -O -Q -S -W -w -B", rest="none", config="-o")),),
    # GNU diff3/sdiff --diff-program=PROG run PROG; mysql --pager=CMD pipes its output into sh -c CMD
    "diff3": (((), _r("-L --label", rest="none", argv="--diff-program")),),
    "sdiff": (((), _r("-o --output -w --width -I --ignore-matching-lines", rest="none", argv="--diff-program")),),
    **{client: (((), _r("-u --user -h --host -P --port -D --database -e --execute -S --socket", rest="none",
                        shell="--pager")),) for client in ("mysql", "mariadb")},
    "scp": (((), _r("-P -i -l -F -J -c -D", rest="none", config="-o", shell="-S")),),
    "sftp": (((), _r("-P -i -l -F -J -c -D -b -B -R", rest="none", config="-o", shell="-S")),),
}
# git subcommands that run what their arguments say (git itself is classified apart: git_*.py)
GIT_RUNNERS: tuple[tuple[tuple[str, ...], Runner], ...] = (
    (("rebase",), _git_shell("-x --exec")),
    (("bisect", "run"), _r()),
    (("submodule", "foreach"), _r(flags="--recursive -q --quiet", rest="shell")),
    (("difftool",), _git_shell("-x --extcmd")),
    (("filter-branch",), _git_shell("--env-filter --tree-filter --index-filter --parent-filter --msg-filter "
                                    "--commit-filter --tag-name-filter --setup")),
    (("fetch",), _git_shell("--upload-pack")),
    (("pull",), _git_shell("--upload-pack")),
    (("clone",), _git_shell("-u --upload-pack")),
    (("ls-remote",), _git_shell("--upload-pack")),
    (("push",), _git_shell("--receive-pack --exec")),
    (("archive",), _git_shell("--exec")),
    # --smtp-server=/ABS/PATH is a sendmail-like program it runs (a host name otherwise)
    (("send-email",), _r(shell="--to-cmd --cc-cmd --sendmail-cmd", argv="--smtp-server", rest="none")),
    (("daemon",), _r(argv="--access-hook", rest="none")),  # run for every connection
    (("instaweb",), _git_shell("--httpd -d --browser -b")),
    (("grep",), _git_shell("-O --open-files-in-pager")),  # -O<pager>: runs it on the files found
)
PYTHONS = frozenset({"python", "python3", "python2", "pypy", "pypy3", "pythonw"}
                    | {f"python3.{minor}" for minor in range(6, 16)})
SEDS = frozenset({"sed", "gsed"})  # GNU sed's `e` runs shell commands
