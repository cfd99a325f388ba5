"""Peel wrappers off a simple command: ``timeout 5 nice -n 1 rm x`` → ``rm x``.

Known wrappers (``timeout``, ``nice``, ``nohup``, ``time``, ``env``, ``xargs``, ``stdbuf``, …)
and their options are stripped so rules match the program that really runs.  Programs that run
arbitrary code (``sudo``, ``bash -c``, ``sh -c``, ``eval``, a variable as the program) always
ask; when their payload is a literal it is handed back as a script to analyze for deny rules.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, replace

from .bash_words import Word, make_word, run_time_word
from .notebook_tools import jupytext_commands, nbqa_command
from .shell_invocation import shell_call


@dataclass(frozen=True, slots=True)
class _Wrapper:
    arg_options: frozenset[str] = frozenset()  # options that take a value
    # None: any other short option is a flag, and so is any other long one given its value after =
    # or listed in long_flags (one not listed, alone, may take the next word: not known)
    flags: frozenset[str] | None = frozenset()
    positional: int = 0  # e.g. timeout's DURATION
    always_ask: str | None = None  # why this wrapper always asks
    shell_option: frozenset[str] = frozenset()  # after the positionals: `-c STRING` runs STRING in sh
    file_options: frozenset[str] = frozenset()  # options whose value is a file the wrapper reads
    write_options: frozenset[str] = frozenset()  # options whose value is a file the wrapper writes
    long_flags: frozenset[str] = frozenset()  # (flags None) long options known to take no value
    code_options: frozenset[str] = frozenset()  # options whose value is shell code run besides: perf stat --pre


def _w(
    args: str = "", flags: str | None = "", positional: int = 0, ask: str | None = None, shell: str = "",
    files: str = "", writes: str = "", long_flags: str = "", code: str = "",
) -> _Wrapper:
    return _Wrapper(
        frozenset(args.split()), None if flags is None else frozenset(flags.split()), positional, ask,
        frozenset(shell.split()), frozenset(files.split()), frozenset(writes.split()), frozenset(long_flags.split()),
        frozenset(code.split()),
    )


WRAPPERS: dict[str, _Wrapper] = {
    "timeout": _w("-s --signal -k --kill-after", "--preserve-status --foreground -v --verbose", 1),
    "nice": _w("-n --adjustment"),
    "nohup": _w(),
    "coproc": _w(),
    "!": _w(),  # `! ! cmd` reaches us as a command named "!"
    # bash's keyword takes -p; GNU time (/usr/bin/time, \time) more: -v, -o FILE, -f FORMAT
    "time": _w("-f --format -o --output", "-p --portability -a --append -v --verbose -q --quiet",
               writes="-o --output"),
    "setsid": _w("", "-w --wait -f --fork"),
    "builtin": _w(),
    # zsh's precommand modifiers (- runs the command as a login shell would name it), repeat N CMD
    # and sched TIME CMD (bash has none of them: there they are programs not found)
    "noglob": _w(), "nocorrect": _w(), "-": _w(), "repeat": _w("", "", 1), "sched": _w("", "-o", 1),
    "command": _w("", "-p"),
    "exec": _w("-a", "-c -l"),
    "stdbuf": _w("-i -o -e --input --output --error"),
    "xargs": _w(
        "-I -L -n -P -s -d -a -E --max-args --max-procs --max-chars --delimiter --arg-file",
        # --eof, --replace, --max-lines take a value only after = (--replace alone is -I {})
        "-0 -r -t -p -x -o --null --no-run-if-empty --verbose --interactive --exit --open-tty --eof --replace "
        "--max-lines",
        files="-a --arg-file",
    ),
    "env": _w("-u --unset -C --chdir -a --argv0", "-i --ignore-environment -0 --null - -v --debug --default-signal "
              "--ignore-signal --block-signal --list-signal-handling"),  # (the signal ones: a value after = only)
    "sudo": _w("-u -g -C -D -h -p -r -t -U -T -R --user --group --chdir --prompt --host --close-from --role --type "
               "--other-user --command-timeout --chroot", None, ask="sudo runs commands as another user",
               long_flags="--askpass --background --bell --edit --login --remove-timestamp --reset-timestamp --list "
                          "--non-interactive --preserve-groups --preserve-env --set-home --shell --stdin --validate "
                          "--help --version"),
    "doas": _w("-u -C", None, ask="doas runs commands as another user"),
    # systemd's run0: as sudo; with no command it starts a shell
    "run0": _w("-u --user -g --group -D --chdir --setenv --property --description --slice --nice --unit --machine "
               "--background --area", None, ask="run0 runs commands as another user",
               long_flags="--no-ask-password --slice-inherit --pty --pipe --via-shell --empower"),
    "watch": _w("-n --interval -q --equexit", None, ask="watch runs its arguments as shell code",
                long_flags="--beep --color --no-color --differences --errexit --chgexit --exec --no-title --no-wrap "
                           "--no-linewrap --precise --help --version"),
    # multiplexers: `busybox rm x` is rm (`busybox sh -c …` a shell)
    "busybox": _w(), "toybox": _w(),
    "sg": _w("", None, 1, ask="sg runs a command as another group", shell="-c"),
    "perf": _w("-o --output -e --event -p --pid -t --tid -F --freq -c --count -C --cpu -G --cgroup -r --repeat "
               "-x --field-separator -I --interval-print --call-graph -m --mmap-pages -u --uid --log-fd "
               "--pre --post -M --metrics -D --delay --filter --switch-output --aux-sample", None, 1,
               ask="perf runs the command it is given and writes what it records",
               long_flags="--all-cpus --no-inherit --null --sync --verbose --scale --no-scale --per-core --per-socket "
                          "--per-thread --per-node --per-die --metric-only --topdown --append --quiet --big-num "
                          "--no-big-num --raw-counts --detailed --stat --no-buildid --no-buildid-cache --force",
               code="--pre --post"),  # perf stat --pre 'make clean': shell code run before the command
    "hyperfine": _w("-w --warmup -m --min-runs -M --max-runs -r --runs -s --setup -p --prepare -c --cleanup -S --shell "
                    "-P --parameter-scan -D --parameter-step-size -L --parameter-list --style --sort -u --time-unit "
                    "--export-asciidoc --export-csv --export-json --export-markdown --export-orgmode -n "
                    "--command-name --output --input --min-benchmarking-time --conclude", None,
                    ask="hyperfine runs its arguments as shell code",
                    long_flags="--ignore-failure --show-output --help --version"),
    # moreutils' pee: each argument is a command line for sh, fed a copy of standard input
    "pee": _w("", "--ignore-sigpipe --no-ignore-sigpipe --ignore-write-errors --no-ignore-write-errors"),
    # moreutils' mispipe 'CMD1' 'CMD2': both command lines for sh, the first piped into the second
    "mispipe": _w("", ""),
    # Scheduling wrappers: the rest of the line is the command, run as it is.
    "ionice": _w("-c --class -n --classdata", "-t --ignore"),
    "taskset": _w("", "-a --all-tasks -c --cpu-list", 1),  # MASK; `-p PID` (no command) is not known
    "chrt": _w("-T --sched-runtime -P --sched-period -D --sched-deadline",
               "-a --all-tasks -b --batch -d --deadline -f --fifo -i --idle -o --other -r --rr "
               "-R --reset-on-fork -v --verbose", 1),  # PRIORITY
    "unbuffer": _w("", "-p"),
    "caffeinate": _w("-t -w", "-d -i -m -s -u"),
    # Limits, placement, queues and environments: the rest of the line is the command, as above
    # (any other option is a flag: an unlisted option's value read as the program asks).
    "numactl": _w("-C --physcpubind -N --cpunodebind -m --membind -i --interleave -p --preferred "
                  "-P --preferred-many -w --weighted-interleave", None,
                  long_flags="--all --localalloc --hardware --show --balancing --help"),
    "prlimit": _w("-p --pid -o --output", None),  # limits take attached values: --nofile=10, -n10
    "cpulimit": _w("-l --limit -p --pid -e --exe -P --path -c --cpu -s --signal", None,
                   long_flags="--lazy --include-children --background --quiet --kill --restore --verbose --help"),
    "systemd-inhibit": _w("--what --who --why --mode", None, long_flags="--list --no-pager --no-legend --help "
                          "--version --no-ask-password"),
    "ssh-agent": _w("-a -E -P -t -O", None, writes="-a"),  # -a SOCKET: made at that path
    "nq": _w("", None),  # nq CMD: queued, then run as written
    "tsp": _w("-L -N -D -W", None),  # task spooler
    "retry": _w("-t --times -d --delay -u --until -m --message", None, long_flags="--help --version"),
    "entr": _w("", "-a -c -d -n -p -r -z", shell="-s"),  # entr -s 'code': code for $SHELL
    # the password from a file (typed at the program's prompt: a read), fd, argument or $SSHPASS
    "sshpass": _w("-f -d -p -P", "-e -v -h -V", files="-f"),
    "setarch": _w("", None, 1, long_flags="--verbose --addr-no-randomize --fdpic-funcptrs --mmap-page-zero "
                  "--addr-compat-layout --read-implies-exec --32bit --short-inode --whole-seconds --sticky-timeouts "
                  "--3gb --4gb --uname-2.6 --list --show --help --version"),  # setarch ARCH [flags] CMD
    **{personality: _w("", None) for personality in ("linux32", "linux64", "i386", "x86_64", "uname26")},
    "cgexec": _w("-g", "--sticky"),
    **{one: _w() for one in ("run-one", "run-this-one", "keep-one-running", "run-one-constantly",
                             "run-one-until-success", "run-one-until-failure")},
    "dbus-launch": _w("--autolaunch --config-file", None, files="--config-file",
                      long_flags="--sh-syntax --csh-syntax --auto-syntax --binary-syntax --exit-with-session "
                                 "--exit-with-x11 --close-stderr --version --help"),
    "daemonize": _w("-c -e -o -p -l -u -E", "-a -v",
                    ask="daemonize runs its command detached, as the user and with the output files it names"),
    # Wrappers that also do something of their own always ask; their command is still checked
    # against deny rules.
    "flock": _w("-w --wait --timeout -E --conflict-exit-code",
                "-s --shared -x -e --exclusive -u --unlock -n --nb --nonblock -o --close -F --no-fork "
                "--verbose", 1, ask="flock creates and locks the file it names", shell="-c --command"),
    "chroot": _w("--userspec --groups", "--skip-chdir", 1, ask="chroot runs commands under another root"),
    "nsenter": _w("-t --target -S --setuid -G --setgid --env", None, ask="nsenter runs commands in other namespaces",
                  long_flags="--all --mount --uts --ipc --net --pid --cgroup --user --time --preserve-credentials "
                             "--no-fork --follow-context --join-cgroup --root --wd --keep-caps --user-parent"),
    "unshare": _w("--map-user --map-group --map-users --map-groups --setuid --setgid --wd --root --propagation "
                  "--setgroups --monotonic --boottime -S -G -R -w", None, ask="unshare runs commands in new namespaces",
                  long_flags="--mount --uts --ipc --net --pid --cgroup --user --time --fork --mount-proc "
                             "--map-root-user --map-current-user --map-auto --kill-child --keep-caps --mount-binfmt"),
    "strace": _w("-o -e -p -s -u -E -a -b -I -O -S -X -P -U --output --attach --string-limit --user --env "
                 "--columns --detach-on --interruptible --summary-sort-by --const-print-style --trace-path --expr "
                 "--trace --signal --status --abbrev --verbose --raw --read --write --fault --inject --quiet "
                 "--summary-columns --kvm --decode-fds --decode-pids --timestamps --absolute-timestamps", None,
                 ask="strace traces and can write files",
                 long_flags="--follow-forks --output-separately --summary-only --summary --summary-wall-clock "
                            "--relative-timestamps --syscall-times --no-abbrev --seccomp-bpf --instruction-pointer "
                            "--stack-trace --daemonize --help --version --debug --output-append-mode --tips"),
    "ltrace": _w("-o -e -p -s -u -a -n -A -D -F -l -x -L -w --output --align --indent --debug --config --library "
                 "--where", None, ask="ltrace traces and can write files", long_flags="--demangle --help --version"),
    "pkexec": _w("--user", None, ask="pkexec runs commands as another user",
                 long_flags="--disable-internal-agent --keep-cwd --help --version"),
    "gosu": _w("", None, 1, ask="gosu runs commands as another user"),  # gosu USER CMD
    "su-exec": _w("", None, 1, ask="su-exec runs commands as another user"),
    "chpst": _w("-u -U -e -/ -n -l -L -m -d -o -p -f -c", "-v -P -0 -1 -2",
                ask="chpst runs commands as another user, root or with other limits"),
    "lckdo": _w("-w -W", "-q", 1, ask="lckdo creates and locks the file it names"),
    "setpriv": _w("--reuid --regid --ruid --euid --rgid --egid --groups --inh-caps --ambient-caps --bounding-set "
                  "--securebits --selinux-label --apparmor-profile --landlock-access --landlock-rule --pdeathsig",
                  None, ask="setpriv runs commands as another user or with other privileges",
                  long_flags="--nnp --no-new-privs --clear-groups --keep-groups --init-groups --reset-env --dump "
                             "--list-caps --help --version"),
    "capsh": _w("--caps --drop --inh --user --uid --gid --groups --chroot --secbits --keep --addamb --delamb "
                "--iab --shell", None, ask="capsh runs a shell (the arguments after --) with other capabilities",
                long_flags="--print --current --license --killit --noamb --noenv --has-ambient --decode --supports "
                           "--has-p --has-i --has-a --has-b --explain --suggest --modes --mode --noexec --quiet --help"),
    "start-stop-daemon": _w("-x --exec -a --startas -n --name -p --pidfile -u --user -c --chuid -r --chroot "
                            "-d --chdir -N --nicelevel -P --procsched -I --iosched -k --umask --signal -s "
                            "--retry -R --output -O", None,
                            ask="start-stop-daemon starts or stops a daemon (the program --exec names)",
                            long_flags="--start --stop --status --test --background --make-pidfile --remove-pidfile "
                                       "--oknodo --quiet --verbose --no-close --notify-await --help --version"),
    "runuser": _w("-u --user -g --group -G --supp-group -s --shell -w --whitelist-environment", None,
                  ask="runuser runs commands as another user", shell="-c --command"),
}
SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "ash", "hush", "rbash", "yash", "posh",
                    "bosh", "lksh", "oksh", "loksh", "pdksh", "ksh93", "csh", "tcsh"})
_NOT_POSIX = frozenset({"fish", "csh", "tcsh"})  # (what they read on standard input is not read as bash)
# shells of other languages: code on their command line or standard input is not read here
OTHER_SHELLS = frozenset({"pwsh", "powershell", "nu", "elvish", "xonsh", "ion", "osh", "ysh", "murex", "rc", "es"})
EVAL_LIKE = frozenset({"eval", "trap"})
DANGEROUS_ENV = frozenset(
    {"PATH", "BASH_ENV", "ENV", "IFS", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "HOME",
     "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "NODE_OPTIONS", "PERL5OPT", "PERL5LIB",
     "RUBYOPT", "EDITOR", "VISUAL", "PAGER", "LESSOPEN", "MANPAGER", "XDG_CONFIG_HOME",
     "CDPATH", "GLOBIGNORE", "TMPDIR", "SSH_ASKPASS", "SUDO_ASKPASS",
     # config or modules a read-only program loads and runs: rg --pre from a config file,
     # glibc's iconv modules, OpenSSL engines, JVM agents
     "RIPGREP_CONFIG_PATH", "GCONV_PATH", "NLSPATH", "OPENSSL_CONF", "OPENSSL_ENGINES",
     # file(1)'s magic file: each line it cannot parse is printed in a warning (a .env's values);
     # less's key files and the commands it runs on opening, closing and editing a file
     "MAGIC", "LESSKEYIN", "LESSKEYIN_SYSTEM", "LESSKEY_SYSTEM", "LESSCLOSE", "LESSEDIT",
     "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "LOCPATH",
     # interpreters' start-up code and module paths: a user site with .pth files, a module
     # imported by name (PYTHONWARNINGS=ignore::mod.Cls, PYTHONBREAKPOINT=mod.fn), Lua's init
     "PYTHONUSERBASE", "PYTHONWARNINGS", "PYTHONBREAKPOINT", "PYTHONPLATLIBDIR", "NODE_PATH", "RUBYLIB",
     "PERLLIB", "LUA_INIT", "LUA_PATH", "LUA_CPATH", "TCLLIBPATH", "R_PROFILE", "R_PROFILE_USER",
     "R_ENVIRON", "R_ENVIRON_USER", "ZDOTDIR", "IPYTHONDIR", "JUPYTER_CONFIG_DIR",
     # the file `history -w`/`-a` writes and `history -r`/`-n` reads when given none
     "HISTFILE",
     # what a build or test runner runs: make takes CC=… and MAKEFLAGS='CC=…' (variables), go
     # -toolexec in GOFLAGS, cargo's compiler wrapper, pytest's plugins and --basetemp (removed!)
     "CC", "CXX", "CPP", "LD", "AS", "AR", "FC", "MAKE", "MAKEFLAGS", "MFLAGS", "MAKEFILES", "GOFLAGS",
     "RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTFLAGS", "PYTEST_ADDOPTS", "PYTEST_PLUGINS",
     # where packages come from (an index serving a setup.py runs it) and client configs that
     # name programs: kubectl exec plugins, docker credential helpers, ~/.curlrc, .wgetrc, less
     "UV_INDEX", "UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_EXTRA_INDEX_URL", "UV_FIND_LINKS", "UV_CONFIG_FILE",
     "UV_PYTHON", "KUBECONFIG", "DOCKER_CONFIG", "CURL_HOME", "WGETRC", "LESS", "LESSKEY", "BROWSER",
     # options read from the environment: tar's (--to-command, --checkpoint-action), zip's -TT,
     # unzip's -d, man's -P, rsync's -e and connect program, parallel's options and $SHELL (run by
     # parallel, entr -s, script, less's !), the remote shells of svn and cvs
     "TAR_OPTIONS", "ZIPOPT", "UNZIP", "UNZIPOPT", "MANOPT", "RSYNC_RSH", "RSYNC_CONNECT_PROG", "PARALLEL",
     "PARALLEL_SHELL", "SHELL", "SVN_SSH", "CVS_RSH", "CVS_SERVER",
     # settings files or folders that name programs: Jupyter's kernel specs, AWS's
     # credential_process, gh's aliases and pager, Mercurial's hooks, gpg's agent, Terraform's
     # provider overrides, screen's and vim's start-up commands, TeX's shell escape, go's env file
     "JUPYTER_PATH", "JUPYTER_DATA_DIR", "JUPYTER_CONFIG_PATH", "XDG_DATA_HOME", "XDG_DATA_DIRS",
     "XDG_CONFIG_DIRS", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "GH_CONFIG_DIR", "GH_PAGER",
     "GH_EDITOR", "GH_BROWSER", "HGRCPATH", "HGEDITOR", "HGMERGE", "GNUPGHOME", "TF_CLI_CONFIG_FILE",
     "TERRAFORM_CONFIG", "SCREENRC", "SYSSCREENRC", "VIMINIT", "EXINIT", "GVIMINIT", "MYVIMRC", "VIMRUNTIME",
     "VIM", "TEXMFCNF", "GOENV", "GOTOOLCHAIN", "GOROOT", "CONDARC", "UV_PROJECT_ENVIRONMENT",
     # pagers and editors some clients run, and what a JVM build loads (-javaagent)
     "SYSTEMD_PAGER", "SYSTEMD_EDITOR", "PSQL_PAGER", "PSQL_EDITOR", "PSQLRC", "KUBE_EDITOR",
     "KUBECTL_EXTERNAL_DIFF", "MAVEN_OPTS", "MAVEN_ARGS", "GRADLE_OPTS", "GRADLE_USER_HOME", "JAVA_OPTS",
     "SBT_OPTS", "ANT_OPTS", "JAVA_HOME",
     # commands a backup or sync tool runs for a password or a connection
     "BORG_RSH", "BORG_PASSCOMMAND", "RCLONE_PASSWORD_COMMAND", "RESTIC_PASSWORD_COMMAND", "RCLONE_CONFIG"}
)
# the dynamic loader's, git's, bash's exported functions; npm's and pip's options (npm_config_
# script_shell runs `npm run`'s scripts, PIP_INDEX_URL picks the index); cargo's settings
_DANGEROUS_PREFIXES = ("LD_", "DYLD_", "GIT_", "BASH_FUNC", "NPM_CONFIG_", "npm_config_", "PIP_", "CARGO_",
                       "YARN_", "RUSTUP_")  # Yarn 2+'s settings (YARN_YARN_PATH), rustup's toolchain
MAKES = frozenset({"make", "gmake", "gnumake", "remake", "colormake"})  # GNU make and its forks and wrappers
TOOLCHAINS = frozenset({"cmake", "go", "cargo"})  # options that run a program their value names
# cargo --config keys that name a program cargo runs (or set what the programs it runs see)
_CARGO_PROGRAM_KEY = re.compile(r"runner|wrapper|linker|rustc|rustdoc|credential|browser|rustflags|^env\.|\.ar$",
                                re.IGNORECASE)
PACKAGE_MANAGERS = frozenset({"npm", "npx", "pnpm", "pnpx", "yarn"})  # settings that name a program they run
_VIMS = frozenset({"vim", "vi", "nvim", "ex", "view", "gvim", "vimdiff", "nvi", "elvis", "vile"})
_EMACSES = frozenset({"emacs", "emacsclient", "xemacs"})
# vi-family editors that take standard input, when it is no terminal, as typed keys (nvim reads it as
# text to edit, emacs refuses it, a GUI vim does not read it; rvim/rview refuse shell commands)
_KEYS_FROM_INPUT = frozenset({"vim", "vi", "ex", "view", "vimdiff", "nvi", "elvis", "vile"})
_PAGERS = frozenset({"less", "more", "most", "pg"})  # +CMD: a command, +!CMD runs a shell (on a terminal)
EDITORS = _VIMS | _EMACSES | _PAGERS | {"ed", "red"}  # commands their command line or standard input gives
NOTEBOOK_RUNNERS = frozenset({"jupytext", "nbqa"})  # options and arguments that name a program (notebook_tools)
# Jupyter's applications (traitlets): a config file or a setting may import and run code
JUPYTER_PROGRAMS = frozenset({"jupyter", "voila", "jupyter-nbconvert", "jupyter-lab", "jupyter-notebook",
                              "jupyter-server", "jupyter-execute", "jupyter-console", "jupyter-kernel",
                              "jupyter-nbclassic"})
# programs that start a shell reading its commands from standard input unless given a command
# (script, nix-shell, `poetry shell` …): stdin_shell_reason
STDIN_SHELLS = frozenset({"script", "nix-shell", "nix", "poetry", "pipenv", "hatch", "pixi", "devbox", "newgrp",
                          "npm"})  # npm explore PKG with no command
# the names _code_runner acts on
# socat's EXEC:/SYSTEM: addresses and netcat's -e/-c run a program or shell code per connection
NETWORK_RUNNERS = frozenset({"socat", "nc", "ncat", "netcat", "nc.traditional", "nc.openbsd"})
_CODE_RUNNERS = (SHELLS | OTHER_SHELLS | EVAL_LIKE | MAKES | TOOLCHAINS | PACKAGE_MANAGERS | NOTEBOOK_RUNNERS
                 | EDITORS | STDIN_SHELLS | JUPYTER_PROGRAMS | NETWORK_RUNNERS | {"su", "command", "alias", "fc"})
_MAX_DEPTH = 20
STDIN_WORDS = Word("<words from stdin>", static=False)
_XARGS_REPLACE = ("-I", "--replace", "-i")


def dangerous_env(name: str, value: str | None = None) -> bool:
    """Variables that change which program runs or what it executes (``value``: the fixed value
    given, None when not known).  ``PYTHONWARNINGS=ignore`` is harmless: a category without a
    dot is a built-in warning, one with a dot (``ignore::mod.Cls``) is imported."""
    if name == "PYTHONWARNINGS" and value is not None and "." not in value:
        return False
    return name in DANGEROUS_ENV or name.startswith(_DANGEROUS_PREFIXES)


@dataclass(slots=True)
class Unwrapped:
    """The forms of one command from outermost to innermost, and what unwrapping found."""

    forms: list[tuple[Word, ...]] = field(default_factory=list)
    ask_reason: str | None = None
    scripts: list[str] = field(default_factory=list)
    appends_args: bool = False  # xargs: arguments also come from stdin
    env: list[str] = field(default_factory=list)  # NAME=VALUE from `env NAME=VALUE`
    lookup_only: bool = False  # `command -v x`: nothing runs
    reads: list[Word] = field(default_factory=list)  # files a wrapper reads: xargs -a FILE
    replaces: bool = False  # xargs -I: the words from stdin may go anywhere in the command
    # it runs shell code not read here (`bash -c "$X"`, `eval "$X"`, `echo … | bash`): deny and
    # ask rules may match it (bash_analysis adds a form of an unknown program)
    unknown_code: bool = False
    # a POSIX shell reading its code from standard input, unknown_code for that alone: bash_stdin
    # may find what it reads (`sh <<'EOF'`, `echo CODE | sh`, `sh < FILE`)
    stdin_shell: bool = False
    prelude: str = ""  # shell code meaning the shell's options (bash -O dotglob: shopt -s dotglob), before its code

    @property
    def innermost(self) -> tuple[Word, ...]:
        return self.forms[-1]

    @property
    def stdin_form(self) -> tuple[Word, ...] | None:
        """xargs: the innermost command with the words it reads — a form for deny and ask rules
        only, whose unknown tail may complete ``qa push`` (``xargs -I{}``: any word after the
        program)."""
        inner = self.forms[-1]
        if not self.appends_args or not inner:
            return None
        return (inner[0], STDIN_WORDS) if self.replaces else (*inner, STDIN_WORDS)


def unwrap(words: tuple[Word, ...]) -> Unwrapped:
    """Strip wrappers until the real program; record always-ask reasons and literal scripts."""
    out = Unwrapped([words], None, [], False, [], False)
    current = words
    for _ in range(_MAX_DEPTH):
        if not current:
            return out
        program = current[0]
        if not program.static or program.glob:
            out.ask_reason = f"the program name {program.text!r} is not a fixed word"
            return out
        name = program.text
        if name in _CODE_RUNNERS and _code_runner(name, current, out):
            return out
        if name == "env" and _env_split_string(current, out):  # env -S 'rm x': the string is a command line
            return out
        if name == "enable":  # enable -f lib.so NAME loads code into the shell; -n/-d change what names run
            if any(w.literal is None or (w.literal[:1] == "-" and set(w.literal[1:]) & set("fdn"))
                   for w in current[1:]):
                out.ask_reason = ("enable -f loads a shared library into the shell (its code runs), and -n/-d "
                                  "make a builtin's name run a program instead")
                out.unknown_code = True  # whatever the library does may be what a deny rule names
            return out
        if name == "run-parts":  # runs every program in a folder: what they do is not known here
            if not any((w.literal or "") in ("--test", "--list") for w in current[1:]):
                out.ask_reason = "run-parts runs every program in the folder it names"
                out.unknown_code = True
            return out
        if name == "coreutils":  # the multi-call binary: coreutils --coreutils-prog=rm x runs rm
            option = current[1].literal if len(current) > 1 else None
            if option is None or not option.startswith("--coreutils-prog"):
                if option is None and len(current) > 1:
                    out.ask_reason = "coreutils runs a program only known at run time"
                    out.unknown_code = True
                return out
            current = (make_word(option.partition("=")[2]), *current[2:])
            out.forms.append(current)
            continue
        if name == "corepack":  # corepack pnpm@8 add x runs pnpm (corepack enable: corepack's own)
            manager = _corepack_manager(current)
            if manager is None:
                return out
            out.forms.append(manager)
            current = manager
            continue
        wrapper = WRAPPERS.get(name)
        if wrapper is None:
            return out
        if wrapper.always_ask:
            out.ask_reason = wrapper.always_ask
        elif out.appends_args:  # `… | xargs xargs -a f`: stdin's words land among its options,
            out.ask_reason = f"xargs hands words from stdin to {name}, where they may be options"
            out.unknown_code = True  # or are the program it runs (`ls | xargs nice` with a file named rm)
        rest = _strip_options(name, wrapper, current[1:], out)
        if rest is None:  # nice $N rm x: with N empty, rm runs; what runs is not known
            out.ask_reason = out.ask_reason or f"could not understand the options of {name}"
            out.unknown_code = True
            return out
        if name == "sudo" and rest and _sudo_edits(current[1:len(current) - len(rest)]):
            rest = (make_word("sudoedit"), *rest)  # sudo -e FILE: sudoedit writes FILE
        if wrapper.write_options:  # /usr/bin/time -o log.txt ls: the wrapper writes a file itself
            for word in current[1:len(current) - len(rest)]:
                option = (word.literal or "").partition("=")[0]
                short = [f"-{c}" for c in option[1:]] if option[:1] == "-" and option[1:2] != "-" else []
                written = option if option in wrapper.write_options else next(
                    (s for s in short if s in wrapper.write_options), None)  # -o, -olog.txt, -vo log.txt
                if written is not None:
                    out.ask_reason = out.ask_reason or f"{name} {written} writes the file it names"
        if name == "watch":  # runs `sh -c "<the rest joined>"`
            if all(w.static for w in rest):
                out.scripts.append(" ".join(w.text for w in rest))
            return out
        if name in ("hyperfine", "pee", "mispipe"):  # each argument (and hyperfine's --prepare …) is shell code
            out.scripts.extend(w.text for w in current[1:] if w.static and not w.text.startswith("-"))
            if any(not w.static for w in current[1:]):  # pee "$CMD": code only known at run time
                out.ask_reason = out.ask_reason or f"{name} runs a string only known at run time as shell code"
                out.unknown_code = True
            return out
        if rest and rest[0].literal in wrapper.shell_option:  # flock FILE -c 'code'
            _shell_string(name, rest[1:], out, rest[0].text)
            return out
        if name == "sg" and rest:  # sg GROUP 'code': /bin/sh -c runs the first word, with or without -c
            _shell_string(name, rest, out, "")
            return out
        if name in ("start-stop-daemon", "capsh"):  # the program is an option's value, or a shell
            rest = _daemon_or_capsh(name, current[1:], rest, out)
        if name == "xargs":
            out.appends_args = True
            if not rest:
                rest = (Word("echo"),)
            out.replaces = out.replaces or any(
                (w.literal or "-I").startswith(_XARGS_REPLACE) for w in current[1:len(current) - len(rest)])
        if not rest:
            if name in _BARE_SHELL and _starts_shell(name, current[1:]):  # echo 'rm x' | sudo -s
                out.ask_reason = f"{name} starts a shell that runs what standard input holds"
                out.unknown_code = True
            return out
        if name == "entr":  # ls | entr cat /_: /_ is the file (of those read) that changed, or the first
            rest = tuple(_ENTR_FILE if w.literal == "/_" else w for w in rest)
        if name == "runuser" and not any((w.literal or "").startswith(("-u", "--user")) for w in current[1:]):
            _su(current, out)  # runuser USER: su's command line
            return out
        out.forms.append(rest)
        current = rest
    out.ask_reason = "too many nested wrappers"
    return out


_ENV_VALUES = frozenset({"-u", "--unset", "-C", "--chdir"})
_ENTR_FILE = make_word(run_time_word("ENTR_FILE", quoted=False), False)


def _env_split_string(words: tuple[Word, ...], out: Unwrapped) -> bool:
    """``env -S 'CMD ARGS' MORE``, ``--split-string=…``: env splits the string into the command and
    its first arguments (quotes, backslashes, ``${VAR}``), as a shell would; it is analyzed as
    shell code with the words after it.  True when there is such an option."""
    i = 0
    while i + 1 < len(words):
        i += 1
        text = words[i].literal
        if text is None or text == "--" or text[:1] != "-":
            return False  # NAME=VALUE, the command, or a word only known at run time
        if text in _ENV_VALUES:
            i += 1  # -u NAME, -C DIR
            continue
        if text.startswith("--"):
            if not text.startswith(("--split-string", "--split")):
                continue
            name, equals, value = text.partition("=")
            rest = words[i + 1:] if equals else words[i + 2:]
            code = value if equals else (words[i + 1].literal if i + 1 < len(words) else None)
        else:  # a cluster: -iS 'cmd'; -uSECRET unsets SECRET (u and C take the rest as a value)
            at = next((j for j, c in enumerate(text[1:], 1) if c in "SuC"), None)
            if at is None or text[at] != "S":
                if at is not None and at == len(text) - 1:
                    i += 1  # -iu NAME
                continue
            code = text[at + 1:] or (words[i + 1].literal if i + 1 < len(words) else None)
            rest = words[i + 1:] if text[at + 1:] else words[i + 2:]
        if code is None or any(w.literal is None for w in rest):
            out.ask_reason = "env -S splits a string only known at run time into a command"
            out.unknown_code = True
        else:
            out.ask_reason = out.ask_reason or "env -S runs a command line it splits itself"
            out.scripts.append(" ".join([code, *(w.text for w in rest)]))
        return True
    return False


_COREPACK_MANAGERS = frozenset({"npm", "npx", "pnpm", "pnpx", "yarn", "yarnpkg"})


def _corepack_manager(words: tuple[Word, ...]) -> tuple[Word, ...] | None:
    """``corepack NAME[@VERSION] ARGS`` as ``NAME ARGS``; None for corepack's own subcommands."""
    first = words[1].literal if len(words) > 1 else None
    name = (first or "").split("@", 1)[0]
    return (make_word(name), *words[2:]) if name in _COREPACK_MANAGERS else None


def _code_runner(name: str, words: tuple[Word, ...], out: Unwrapped) -> bool:
    """Shells, eval, su and ``command -v``: record what they run; True when unwrapping ends."""
    if name in SHELLS:
        _shell(words, out)
    elif name in OTHER_SHELLS:
        out.ask_reason = out.ask_reason or _other_shell_reason(words)
        out.unknown_code = out.unknown_code or out.ask_reason is not None  # pwsh -c 'rm x': not read here
    elif name in JUPYTER_PROGRAMS:  # jupyter nbconvert --config x.py, --Exporter.preprocessors=['m.C']
        reason = traitlets_code_reason(words)
        out.ask_reason = out.ask_reason or reason
        # --ServerApp.browser='rm y %s': a command, which a deny rule may name (Python it imports
        # is like `python x.py`: a script's code is not read)
        out.unknown_code = out.unknown_code or (reason is not None and _TRAITLETS_COMMAND.search(reason) is not None)
        return False
    elif name == "trap":
        _trap(words, out)
    elif name == "alias":
        _alias(words, out)
    elif name == "fc":
        _fc(words, out)
    elif name in EVAL_LIKE:
        out.ask_reason = f"{name} runs its arguments as shell code"
        args = words[2:] if name == "eval" and len(words) > 1 and words[1].literal == "--" else words[1:]
        if name == "eval" and all(w.static for w in args):  # (eval -- CODE: the -- ends its options)
            out.scripts.append(" ".join(w.text for w in args))
        elif name == "eval":
            out.unknown_code = True
    elif name == "su":
        _su(words, out)
    elif name == "command" and any(w.literal in ("-v", "-V") for w in words[1:2]):
        out.lookup_only = True
    elif name in MAKES:
        _make(words, out)
        return False  # make itself is the program (rules name it)
    elif name in TOOLCHAINS:
        _toolchain(name, words, out)
        return False
    elif name in PACKAGE_MANAGERS or name in EDITORS or name in STDIN_SHELLS:  # npm --script-shell=…, vim -c '!…'
        reason = (package_setting_reason(words) if name in PACKAGE_MANAGERS else
                  editor_commands_reason(words) if name in EDITORS else None)
        stdin_reason = stdin_shell_reason(words) if name in STDIN_SHELLS else None
        # vim -c '!rm x', emacs --eval, npm --script-shell=X: what they run is code only known
        # at run time, which a deny rule may name (bypassPermissions ran vim -c '!rm x')
        out.unknown_code = out.unknown_code or stdin_reason is not None or reason is not None
        reason = reason or stdin_reason
        out.ask_reason = out.ask_reason or reason
        return False
    elif name in NETWORK_RUNNERS:
        _network_runner(name, words, out)
        return False
    elif name in NOTEBOOK_RUNNERS:  # jupytext --pipe CMD, nbqa CMD …: CMD is a command of the line
        commands = jupytext_commands(words[1:]) if name == "jupytext" else [c for c in [nbqa_command(words[1:])] if c]
        for command in commands:
            if any(c is None for c in command):
                out.ask_reason = out.ask_reason or f"{name} runs a program only known at run time"
                out.unknown_code = True  # jupytext --pipe "$CMD": a deny rule may name it
            else:
                out.scripts.append(shlex.join(c for c in command if c is not None))
        return False
    else:
        return False
    return True


_SOCAT_RUNS = re.compile(r"(?i)^(exec|system|shell):")  # SHELL:CODE since socat 1.8
# socat's address types whose parameter is a file name (a bare name with a / is GOPEN too)
_SOCAT_FILES = frozenset({"open", "gopen", "file", "create", "creat", "pipe", "unix", "unix-connect", "unix-listen",
                          "unix-sendto", "unix-recv", "unix-recvfrom", "unix-client", "local"})


def socat_paths(address: str) -> list[str]:
    """The files a socat address names: ``OPEN:.env`` (``TYPE:NAME,option…``); an option's value
    (``,link=F``, ``,history=F``) is found as any ``=`` value is (``bash_arguments``)."""
    kind, colon, rest = address.partition(":")
    if not colon or kind.lower() not in _SOCAT_FILES:
        return []
    return [rest.split(",", 1)[0]]

_NETCAT_CODE = {"-e": False, "--exec": False, "-c": True, "--sh-exec": True}  # True: shell code


def _network_runner(name: str, words: tuple[Word, ...], out: Unwrapped) -> None:
    """``socat - EXEC:'rm x'`` runs ``rm x`` (``SYSTEM:CODE``: ``sh -c CODE``) and ``nc -l -p 9
    -e /bin/rm``, ``ncat --sh-exec CODE`` run theirs: commands of the line.  A command in a form
    not read here (quotes or escapes in a socat address, ncat's ``--lua-exec``, a word only known
    at run time) is code only known at run time, which a deny rule may name."""
    unknown = None
    for k, word in enumerate(words[1:], 1):
        text = word.literal
        if text is None:
            if name == "socat" or word.text.startswith("-"):
                unknown = f"{name} has a word only known at run time, which may be a command it runs"
            continue
        if name == "socat":
            match = _SOCAT_RUNS.match(text)
            if match is None:
                continue
            command = text[match.end():]
            if any(c in command for c in "\'\"\\"):
                unknown = f"socat {match.group(1)}: runs a command in a form not read here"
                continue
            out.scripts.append(command.split(",", 1)[0])
            continue
        option, equals, value = text.partition("=")
        if option == "--lua-exec":
            unknown = "ncat --lua-exec runs a Lua script"
            continue
        shell = _NETCAT_CODE.get(option)
        if shell is None and option[:1] == "-" and option[1:2] != "-" and option[-1:] in "ec" and len(option) > 2:
            shell = option[-1] == "c"  # -lve /bin/sh: the cluster's last letter takes the value
        if shell is None:
            continue
        following = value if equals else (words[k + 1] if k + 1 < len(words) else None)
        code = following if isinstance(following, str) else following.literal if following is not None else None
        if code is None:
            unknown = f"{name} {option} runs a command only known at run time"
        elif shell or name == "ncat":  # ncat -e 'rm x' splits its value into words (rm, x)
            out.scripts.append(code)
        else:
            out.scripts.append(shlex.quote(code))
    if unknown is not None:
        out.ask_reason = out.ask_reason or unknown
        out.unknown_code = True


# make variables that choose the shell recipes run in or more options, and make functions that
# run a command or write a file when a command-line variable is expanded
_MAKE_SHELL_VARIABLES = frozenset({"SHELL", ".SHELLFLAGS", "MAKESHELL", "MAKEFLAGS", "MFLAGS", "MAKEFILES",
                                   "MAKE", "COMSPEC"})
_MAKE_CODE = re.compile(r"[$][({]\s*(?:shell|eval|file|guile|load)\b|`")
_MAKE_STDIN_FILES = ("-", "/dev/stdin", "/dev/fd/", "/proc/")


def _make(words: tuple[Word, ...], out: Unwrapped) -> None:
    """``make --eval='x:; rm -rf y' x``, ``make -f - <<<…``, ``make SHELL=…``, ``make 'V=$(shell …)'``:
    recipes and commands the command line itself gives make ask, as ``sh -c`` does (under a rule
    allowing make too); the literal recipes are read as shell code for the deny rules."""
    args = words[1:]
    for i, word in enumerate(args):
        text = word.literal
        if text is None:
            if "=" in word.text or word.text[:1] == "-":
                out.ask_reason = "make has a word only known at run time, which may be a recipe or a setting"
            continue
        following = args[i + 1].literal if i + 1 < len(args) else None
        if text in ("--eval", "-E") or text.startswith(("--eval=", "-E")):
            code = text.partition("=")[2] if text.startswith("--eval=") else (
                text[2:] if text.startswith("-E") and len(text) > 2 else following)
            out.ask_reason = "make --eval runs recipes its command line gives it"
            if code is not None:
                out.scripts.extend(_make_recipes(code))
        elif text in ("-f", "--file", "--makefile") or text.startswith(("--file=", "--makefile=", "-f")):
            name = text.partition("=")[2] if text.startswith("--") and "=" in text else (
                text[2:] if text.startswith("-f") and len(text) > 2 else following)
            if name is None or name.startswith(_MAKE_STDIN_FILES):
                out.ask_reason = "make reads its makefile from standard input or a descriptor"
        elif "=" in text and text[:1] != "-":
            variable = re.split(r"[:+?!]*=", text, maxsplit=1)[0].strip()
            if variable in _MAKE_SHELL_VARIABLES or _MAKE_CODE.search(text):
                out.ask_reason = f"make {text} sets how recipes run or runs a command as make reads it"
                out.unknown_code = True  # make SHELL=rm test runs `rm -c RECIPE`: a deny rule may name it
                for match in re.finditer(r"[$][({]\s*shell\s+([^)}]*)[)}]", text):
                    out.scripts.append(match.group(1))


# cmake -E's file commands, as the program that does the same (whose rules and path checks apply)
_CMAKE_FILE_COMMANDS = {
    "rm": ("rm",), "remove": ("rm",), "remove_directory": ("rm", "-r"), "rename": ("mv",), "copy": ("cp",),
    "copy_if_different": ("cp",), "copy_if_newer": ("cp",), "copy_directory": ("cp", "-r"),
    "copy_directory_if_different": ("cp", "-r"), "copy_directory_if_newer": ("cp", "-r"),
    "make_directory": ("mkdir", "-p"), "touch": ("touch",), "touch_nocreate": ("touch", "-c"),
    "create_symlink": ("ln", "-s"), "create_hardlink": ("ln",), "tar": ("tar",), "cat": ("cat",),
}


_DAEMON_PROGRAM = ("-x", "--exec", "-a", "--startas")


def _daemon_or_capsh(name: str, words: tuple[Word, ...], rest: tuple[Word, ...], out: Unwrapped) -> tuple[Word, ...]:
    """``start-stop-daemon --start --exec /bin/rm -- x`` runs ``/bin/rm x`` (``--startas`` too);
    ``capsh [--shell=SH] -- ARGS`` runs ``bash ARGS`` (``capsh -- -c 'rm x'``).  Their operands
    after ``--`` are what ``_strip_options`` left (``rest``)."""
    after = rest[1:] if rest[:1] and rest[0].literal == "--" else rest
    named: dict[str, Word | None] = {}  # --startas runs; --exec is also what it looks for
    for i, word in enumerate(words):
        text = word.literal
        if text is None or text == "--":
            break
        key, equals, value = text.partition("=")
        if key in (_DAEMON_PROGRAM if name == "start-stop-daemon" else ("--shell",)):
            kind = "exec" if key in ("-x", "--exec") else "runs"
            named[kind] = make_word(value) if equals else words[i + 1] if i + 1 < len(words) else None
    default = Word("bash") if name == "capsh" else None
    program = named.get("runs", named.get("exec", default))
    if name == "capsh" and not any(w.literal == "--" for w in words):
        return ()  # capsh --print, capsh --caps=… ==: no shell runs
    if program is None or program.literal is None:
        out.ask_reason = out.ask_reason or f"{name} runs a program only known at run time"
        out.unknown_code = True
        return ()
    return (program, *after)


def _toolchain(name: str, words: tuple[Word, ...], out: Unwrapped) -> None:
    """``cmake -E env|chdir|time CMD…`` (and its file commands, ``cmake -E rm x`` as ``rm x``) and
    ``go build -toolexec CMD``, ``go run|test -exec CMD``
    run the program their arguments name: it is a command of the line, which must be allowed or
    read-only on its own (as after ``xargs``).  ``cargo --config 'target.….runner="CMD"'`` (a
    runner, wrapper, linker, rustc, credential provider, ``env.*``, or a settings file) asks."""
    texts = [w.literal for w in words[1:]]
    command: list[str | None] = []
    if name == "cmake" and texts[:1] == ["-E"] and texts[1:2] in (["env"], ["chdir"], ["time"]):
        rest = texts[2:]
        if texts[1] == "chdir":
            rest = rest[1:]  # the folder (checked as a cd would be by bash_chdir: -E chdir is not)
            out.ask_reason = out.ask_reason or "cmake -E chdir runs a command in another folder"
        elif texts[1] == "env":
            while rest and rest[0] is not None and (rest[0].startswith("--unset=") or (
                    "=" in rest[0] and not rest[0].startswith("-"))):
                rest = rest[1:]
            rest = rest[1:] if rest[:1] == ["--"] else rest
        command = rest
    elif name == "cmake" and texts[:1] == ["-E"] and len(texts) > 1 and texts[1] in _CMAKE_FILE_COMMANDS:
        command = [*_CMAKE_FILE_COMMANDS[texts[1] or ""], *texts[2:]]  # cmake -E rm -rf x: rm -rf x
    elif name == "cargo":
        for i, text in enumerate(texts):
            if text is None or not (text == "--config" or text.startswith("--config=")):
                continue
            setting = text.partition("=")[2] if "=" in text else (texts[i + 1] if i + 1 < len(texts) else "")
            key = (setting or "").partition("=")[0].strip()
            if setting is None or "=" not in setting or _CARGO_PROGRAM_KEY.search(key):
                out.ask_reason = f"cargo --config {setting or '…'} may name a program cargo runs"
                out.unknown_code = True  # a runner="rm -rf x": a deny rule may name it
                return
        return
    elif name == "go":
        for i, text in enumerate(texts):
            if text is None:
                continue
            key, equals, value = text.partition("=")
            if key in ("-toolexec", "--toolexec", "-exec", "--exec"):
                following = texts[i + 1] if i + 1 < len(texts) else ""
                if not equals and following is None:
                    command = [None]  # a program only known at run time
                else:
                    command = list((value if equals else following or "").split())
                break
    if not command:
        return
    if any(c is None for c in command):
        out.ask_reason = f"{name} runs a program only known at run time"
        out.unknown_code = True
        return
    out.scripts.append(" ".join(shlex.quote(c) for c in command if c is not None))


# npm's and pnpm's settings that name a program: the shell `run` runs scripts in, the one `exec`
# and `explore` use, git, the editor, the browser and man viewer, node's options, and settings
# files that may set any of them; with the shortest abbreviation npm's option parser takes
_PACKAGE_PROGRAM_SETTINGS = {"script-shell": 5, "shell": 5, "node-options": 6, "userconfig": 5, "globalconfig": 8,
                             "git": 3, "editor": 4, "browser": 4, "viewer": 4, "init-module": 5, "node-gyp": 6,
                             "use-yarnrc": 5, "rcfile": 6}


# traitlets settings whose value names code Jupyter imports or a command it runs (a class, a list
# of preprocessors or extensions, the browser, a kernel or terminal command, lines IPython runs)
_TRAITLETS_CODE = re.compile(r"(?:_class|_classes|preprocessors|postprocessors|extensions|kernel_cmd|browser|"
                             r"shell_command|terminado_settings|exec_lines|exec_files|code_to_run|module_to_run|"
                             r"file_to_run|extra_services|hooks?|_hook|filters|exporters?|writer|post_save_hook|"
                             r"pre_save_hook|argv|command|cmd|_factory)$", re.IGNORECASE)


_TRAITLETS_COMMAND = re.compile(r"(?:kernel_cmd|browser|shell_command|terminado_settings|argv|command|cmd) "
                                r"names code|only known at run time", re.IGNORECASE)


def traitlets_code_reason(words: tuple[Word, ...]) -> str | None:
    """``jupyter nbconvert --config x.py`` runs x.py; ``--Exporter.preprocessors=['m.C']``,
    ``--NbConvertApp.postprocessor_class=m.C`` import m; ``--ServerApp.browser=CMD`` runs CMD: a
    rule that allows the Jupyter application does not allow the code its settings name."""
    name = words[0].text
    for word in words[1:]:
        text = word.literal
        if text is None:
            if word.text.startswith("--"):
                return f"{name} takes a setting only known at run time, which may name code it runs"
            continue
        key = text.partition("=")[0]
        if key in ("--config", "--config-file", "--config_file") or (len(key) > 4 and "--config".startswith(key)):
            return f"{name} {key} runs a Python configuration file"
        if key.startswith("--") and "." in key and _TRAITLETS_CODE.search(key.rpartition(".")[2]):
            return f"{name} {key} names code or a command it runs"
    return None


def package_setting_reason(words: tuple[Word, ...]) -> str | None:
    """``npm run test --script-shell=/tmp/x``, ``npm --git=./evil install``, ``npm test
    --node-options='--require ./x.js'``: a rule that allows npm allows the project's scripts run
    as npm runs them, not a program named on the command line (``make SHELL=…`` asks too)."""
    name = words[0].text
    for word in words[1:]:
        text = word.literal
        if text is None:
            if word.text.startswith("--"):
                return f"{name} takes a setting only known at run time ({word.text})"
            continue
        if text == "--":
            return None  # the rest goes to the script
        key = text[2:].partition("=")[0] if text.startswith("--") else ""
        for setting, shortest in _PACKAGE_PROGRAM_SETTINGS.items():
            if key == setting or (len(key) >= shortest and setting.startswith(key)):
                return f"{name} {text} names a program or settings file it runs"
    return None


_VIM_SCRIPTED = ("-c", "--cmd", "-S", "-s", "-u", "-U", "-e", "-E", "-es", "-Es", "--headless", "-W", "-w")
_EMACS_SCRIPTED = ("--eval", "-l", "--load", "-f", "--funcall", "--script", "-x", "--batch", "-batch", "-e", "-L")


def editor_commands_reason(words: tuple[Word, ...]) -> str | None:
    """An editor run with commands (``vim -c '!rm x'``, ``vim +'!rm x'``, ``vim -es`` reading
    Ex commands from standard input, ``ed``, ``emacs --eval '(shell-command …)'``): an editor's
    commands can run a shell and write any file, so a rule that allows the editor does not allow
    them.  None when it only opens files (which an agent cannot type into)."""
    name = words[0].text
    if name in ("ed", "red"):
        return f"{name} runs the commands it reads from standard input, which can run a shell (!cmd)"
    if name in _KEYS_FROM_INPUT and not any(w.literal in ("--version", "-h", "--help") for w in words[1:]):
        # printf ':!rm x\n' | vim a.py ran rm: what standard input holds (not a terminal) is typed
        return (f"{name} reads typed keys or Ex commands from standard input when it is no terminal, which "
                "can run a shell (:!cmd)")
    for word in words[1:]:
        text = word.literal
        if text is None:
            return f"{name} takes a word only known at run time, which may give it commands"
        if text == "--":
            return None
        if name in _VIMS and ((text[:1] == "+" and not text[1:].isdigit() and text != "+")
                              or text.startswith(_VIM_SCRIPTED)):
            return f"{name} runs the Ex commands its command line gives ({text}), which can run a shell (:!cmd)"
        if name in _EMACSES and text.startswith(_EMACS_SCRIPTED):
            return f"{name} runs the Lisp its command line gives ({text}), which can run a shell"
        if name in _PAGERS and text[:1] == "+" and not _PLAIN_PAGER_COMMAND.fullmatch(text.lstrip("+")):
            return f"{name} runs the command its command line gives ({text}), which can run a shell (!cmd)"
    return None


# a pager's start-up command that only moves or searches: +123, +G, +F, +/pattern (no ! or |)
_PLAIN_PAGER_COMMAND = re.compile(r"[0-9]*[gGpF%N]?|[/?][^!|\n]*")


def _make_recipes(code: str) -> list[str]:
    """The shell commands in make text: a rule's recipe after ``;``, tab-led lines, ``$(shell …)``."""
    found: list[str] = []
    for line in code.split("\n"):
        if line.startswith("\t"):
            found.append(line[1:])
        elif ":" in line and ";" in line.split(":", 1)[1]:
            found.append(line.split(":", 1)[1].split(";", 1)[1])
    found.extend(m.group(1) for m in re.finditer(r"[$][({]\s*shell\s+([^)}]*)[)}]", code))
    return [f.replace("$$", "$") for f in found if f.strip()]


def _strip_options(
    name: str, wrapper: _Wrapper, args: tuple[Word, ...], out: Unwrapped
) -> tuple[Word, ...] | None:
    i = 0
    while i < len(args):
        value = args[i].literal
        if value is None:
            return None
        if value == "--":
            i += 1
            while name == "env" and i < len(args) and "=" in (args[i].literal or ""):  # env -- NAME=VALUE CMD
                out.env.append(args[i].literal or "")
                i += 1
            break
        if name == "env" and "=" in value and not value.startswith("-"):
            out.env.append(value)  # NAME=VALUE
            i += 1
            continue
        if not value.startswith("-") or value == "-" and name != "env":
            break
        if value in wrapper.shell_option:  # runuser -c 'code' USER: the code is all that runs
            _shell_string(name, args[i + 1:i + 2], out, value)
            return ()
        step = _option_width(wrapper, value, name)
        if step is None:
            return None
        if value.split("=", 1)[0] in wrapper.code_options:  # perf stat --pre 'make clean' CMD
            code = value.partition("=")[2] if "=" in value else args[i + 1].literal if i + 1 < len(args) else ""
            if code is None:
                out.unknown_code = True
            elif code:
                out.scripts.append(code)
        if wrapper.file_options:
            _file_option(wrapper, args[i:i + step], out)
        i += step
    count = wrapper.positional
    if not count:
        return args[i:]
    if len(args) - i < count:
        return None
    for word in args[i:i + count]:
        if not word.static or word.glob:  # e.g. timeout's DURATION must be a fixed word
            return None
    rest = args[i + count:]
    if rest and (rest[0].literal or "-")[:1] == "-" and rest[0].literal not in ("-", *wrapper.shell_option):
        # options after them (perf stat -e cycles CMD, setarch ARCH -R CMD): read as options too
        # (flock FILE -c CODE: the caller's)
        return _strip_options(name, replace(wrapper, positional=0), rest, out)
    return rest


def _sudo_edits(options: tuple[Word, ...]) -> bool:
    """``sudo -e``/``--edit`` (alone or in a cluster of flags before a value letter): the
    operands are files sudoedit writes, not a command."""
    for word in options:
        text = word.literal or ""
        if text in ("--edit", "-e"):
            return True
        if text[:1] == "-" and text[1:2] != "-":
            for letter in text[1:]:
                if letter == "e":
                    return True
                if "-" + letter in WRAPPERS["sudo"].arg_options:
                    break  # the rest is that option's value
    return False


def _option_width(wrapper: _Wrapper, value: str, name: str) -> int | None:
    """How many words this option takes (1 or 2), or None when it is unknown."""
    key = value.split("=", 1)[0]
    if key in wrapper.arg_options:
        return 1 if "=" in value else 2
    if wrapper.flags is not None and key in wrapper.flags:
        return 1
    if wrapper.flags is None and value.startswith("--") and "=" not in value and value not in wrapper.long_flags:
        return None  # sudo --host h CMD: an unlisted long option may take the next word
    if name == "nice" and value[1:].lstrip("-").isdigit():
        return 1
    if not value.startswith("--") and len(value) > 2:  # a cluster: -n1, -I{}, -oL; sudo -Eu root
        for k, letter in enumerate(value[1:], 2):
            if "-" + letter in wrapper.arg_options:  # its value: the rest of the word, or the next word
                return 1 if k < len(value) else 2
            if wrapper.flags is not None and "-" + letter not in wrapper.flags:
                return None
        return 1
    return 1 if wrapper.flags is None else None


def _shell(words: tuple[Word, ...], out: Unwrapped) -> None:
    """``bash -c 'code'`` always asks, as does a shell reading its commands from standard input
    (no script, ``-s``, ``-``: ``echo 'rm x' | bash``); ``bash script.sh`` is an ordinary
    (non-read-only) program.  Its options are read as the shell reads them (``shell_invocation``:
    ``bash -eo pipefail -c CODE``); those that change how the code reads come before it."""
    name = words[0].text.rsplit("/", 1)[-1]
    call = shell_call([w.literal for w in words[1:]], name)
    if call.mode == "unknown":
        out.ask_reason = "a shell with dynamic arguments"
        out.unknown_code = True
        return
    out.prelude = call.prelude
    if call.mode == "command":
        start = len(out.scripts)
        _shell_string(words[0].text, words[1 + call.operand:2 + call.operand] if call.operand is not None else (),
                      out)
        out.scripts[start:] = [call.prelude + code for code in out.scripts[start:]]
    elif call.mode == "stdin":
        out.ask_reason = f"{words[0].text} runs the commands it reads from standard input"
        out.stdin_shell = not out.unknown_code and name not in _NOT_POSIX  # (a wrapper's own unknown stays)
        out.unknown_code = True


def _other_shell_reason(words: tuple[Word, ...]) -> str | None:
    """``pwsh -Command …``, ``nu -c …``, ``xonsh`` reading standard input: code in a language
    this analyzer does not read runs (a script file given as the first operand is a program)."""
    name = words[0].text
    for word in words[1:]:
        text = word.literal
        if text is None:
            return f"{name} has a word only known at run time"
        if text[:1] != "-" or text == "-":
            return None if text != "-" else f"{name} runs the commands it reads from standard input"
        lowered = text.lower().lstrip("-")
        if lowered[:1] in ("c", "e") or lowered in ("i", "interactive"):  # -c, -Command, -EncodedCommand, -e
            return f"{name} {text} runs code given on its command line"
        if lowered in ("f", "file"):
            return None  # pwsh -File script.ps1
    return f"{name} runs the commands it reads from standard input"


_STDIN_SHELL_COMMANDS = {"script": ("-c", "--command"), "nix-shell": ("--run", "--command"),
                         "nix": ("-c", "--command")}


def stdin_shell_reason(words: tuple[Word, ...]) -> str | None:
    """``script``, ``nix-shell``, ``nix develop|shell`` without a command, ``poetry|pipenv|hatch|
    pixi|devbox shell``, ``npm explore PKG`` and ``newgrp`` start a shell that runs what standard
    input gives it (``echo 'rm x' | script -q``), as a bare ``bash`` does."""
    name = words[0].text
    texts = [w.literal for w in words[1:]]
    first = next((t for t in texts if t is None or t[:1] != "-"), "")  # the subcommand (None: not known)
    why = f"{name} starts a shell that runs the commands it reads from standard input"
    if name == "newgrp":
        return why
    if name == "npm":  # npm explore PKG [-- CMD]
        if first not in ("explore", None) or ("--" in texts and texts.index("--") < len(texts) - 1):
            return None
        return "npm explore starts a shell in the package's folder that runs the commands it reads from standard input"
    if name not in _STDIN_SHELL_COMMANDS:  # poetry shell, hatch shell …
        return why if first in ("shell", None) else None
    if name == "nix" and first not in ("develop", "shell", None):
        return None
    given = _STDIN_SHELL_COMMANDS[name]
    for text in texts:
        if text is None:
            return f"{name} has a word only known at run time, where it may start a shell"
        if text.partition("=")[0] in given or (given[0] == "-c" and text[:1] == "-" and text[1:2] != "-"
                                                and "c" in text[1:]):
            return None  # script -c CMD, nix-shell --run CMD: the command runs, then it ends
    return why


def _file_option(wrapper: _Wrapper, option: tuple[Word, ...], out: Unwrapped) -> None:
    """Record the file of ``-a FILE``, ``-aFILE`` or ``--arg-file=FILE`` (``option``: its words)."""
    first = option[0].text
    if len(option) == 2 and first in wrapper.file_options:
        out.reads.append(option[1])
        return
    key, eq, value = first.partition("=")
    if eq and key in wrapper.file_options:
        out.reads.append(Word(value))
    elif not eq and first[:2] in wrapper.file_options and len(first) > 2:
        out.reads.append(Word(first[2:]))


def _shell_string(name: str, args: tuple[Word, ...], out: Unwrapped, option: str = "-c") -> None:
    """The string after a wrapper's ``-c`` (entr's ``-s``): run by a shell, so it always asks."""
    out.ask_reason = f"{name} {option} runs a string as shell code" if option else f"{name} runs a string as shell code"
    script = args[0].literal if args else None
    if script is not None:
        out.scripts.append(script)
    else:  # `xargs sh -c` with no string: the code is what xargs reads (`echo 'rm x' | xargs -0 sh -c`)
        out.ask_reason = "a shell running a string only known at run time"
        out.unknown_code = True


def _trap(words: tuple[Word, ...], out: Unwrapped) -> None:
    """``trap [-lpP] [[ACTION] SIGNAL ...]``: ACTION is shell code the shell runs when a signal
    comes or it exits (``trap 'rm x' EXIT``), read like eval's.  ``-`` or a lone signal resets,
    ``''`` ignores, ``-l``/``-p``/``-P`` list: no code.  A first operand of digits is a signal
    (POSIX), so every operand resets."""
    args = words[1:]
    while args and (args[0].literal or "")[:1] == "-" and args[0].literal not in ("-", "--"):
        if args[0].literal in ("-l", "-p", "-P", "-lp", "-pl"):
            return  # lists; never sets
        args = args[1:]
        if not args:
            return
    if args and args[0].literal == "--":
        args = args[1:]
    if len(args) < 2 or args[0].literal == "-" or (args[0].literal or "x").isdigit():
        return
    out.ask_reason = "trap runs its action as shell code (when a signal comes or the shell exits)"
    action = args[0].literal
    if action is None:
        out.unknown_code = True
    elif action.strip():
        # as a loop's body: the action may run any number of times (DEBUG before every command,
        # ERR at each failure, RETURN after each function), so `trap 'cd ..' DEBUG` goes one
        # folder further up before each later command
        out.scripts.append(f"while :; do\n{action}\ndone")


def _alias(words: tuple[Word, ...], out: Unwrapped) -> None:
    """``alias NAME=VALUE``: once aliases expand (``shopt -s expand_aliases``), a later line's
    NAME runs VALUE as shell code, so each value is read as code now, like eval's."""
    for word in words[1:]:
        if word.literal is None:
            if "=" in word.text or not word.static:
                out.ask_reason = "alias defines a command from a value only known at run time"
                out.unknown_code = True
        elif "=" in word.literal:
            value = word.literal.partition("=")[2]
            if value.strip():
                out.scripts.append(value)


def _fc(words: tuple[Word, ...], out: Unwrapped) -> None:
    """``fc`` runs commands from the history, through an editor whose ``-e`` value is itself a
    command line; only ``fc -l`` merely lists."""
    options = [w.literal for w in words[1:] if w.literal is None or w.literal[:1] == "-"]
    if not any(o is not None and o[:1] == "-" and o[1:2] != "-" and "l" in o[1:] and "e" not in o[1:]
               for o in options):
        out.ask_reason = "fc runs commands from the shell's history (and its editor's command line)"
        out.unknown_code = True


def _su(words: tuple[Word, ...], out: Unwrapped) -> None:
    """``su [-c CODE] [-s SHELL] [USER [ARG …]]`` (runuser without ``-u`` too): the code, or else a
    login shell that runs what standard input holds (``echo 'rm x' | su``); ``-s`` names the
    program that runs as that shell."""
    name = words[0].text
    out.ask_reason = f"{name} runs commands as another user"
    args = words[1:]
    code = False
    i = 0
    while i < len(args):
        value = args[i].literal
        if value is None:
            out.unknown_code = True
            return
        following = args[i + 1].literal if i + 1 < len(args) else ""
        key, eq, given = value.partition("=")
        if key in ("--command", "--session-command", "--shell") or value[:1] == "-" and value[1:2] != "-":
            if key[:2] == "--":
                letter, taken = ("s" if key == "--shell" else "c"), (given if eq else following)
                i += 1 if eq else 2
            else:  # a cluster: -lc CODE, -cCODE, -s SHELL
                at = next((k for k, c in enumerate(value[1:], 1) if c in _SU_VALUES), None)
                if at is None:
                    i += 1
                    continue
                letter, taken = value[at], value[at + 1:] or following
                i += 1 if value[at + 1:] else 2
            if taken is None:
                out.unknown_code = True
                return
            if letter == "c":
                out.scripts.append(taken)
                code = True
            elif letter == "s":  # su -s /bin/rm root x: the "shell" is that program
                out.forms.append((make_word(taken),))
                out.unknown_code = True
            continue
        i += 1
    if not code:
        out.ask_reason = f"{name} starts a shell that runs what standard input holds"
        out.unknown_code = True


_SU_VALUES = frozenset("cgGsw")  # su's short options that take a value (c: the code, s: the shell)
# with no command: sudo -s/-i, doas -s, pkexec, chroot DIR, unshare, nsenter, sg GROUP and setarch
# start a shell that runs what standard input holds (the letters: the options that make sudo do so)
_BARE_SHELL = {"sudo": frozenset("si"), "doas": frozenset("s"),
               **{name: frozenset() for name in ("pkexec", "run0", "chroot", "unshare", "nsenter", "sg", "setarch",
                                                  "linux32", "linux64", "i386", "x86_64", "uname26")}}
_INFO_OPTIONS = frozenset({"--help", "--version", "-h", "-V"})


def _starts_shell(name: str, options: tuple[Word, ...]) -> bool:
    letters = _BARE_SHELL[name]
    if any(word.literal in _INFO_OPTIONS for word in options):
        return False
    if not letters:
        return True
    for word in options:
        text = word.literal or ""
        if text in ("--shell", "--login") or text[:1] == "-" and text[1:2] != "-" and letters & set(text[1:]):
            return True
    return False
