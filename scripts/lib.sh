#!/usr/bin/env bash
# Shared helpers for scripts/test and scripts/demo. Source it:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# or run one helper directly, e.g. `scripts/lib.sh pg_bin_dir`.
#
#   ensure_postgres               install PostgreSQL (Debian packages) unless present
#   ensure_haproxy                install HAProxy (Debian packages) unless present
#   ensure_sysbench               install sysbench (Debian packages) unless present
#   ensure_sysstat                install sysstat (Debian packages) unless present
#   ensure_container_tools        install buildah, podman and runc (Debian packages) unless present
#   apt_install PKG...            install Debian packages (sudo if not root)
#   pg_bin_dir                    print the directory with initdb, pg_ctl and postgres
#   free_port                     print a TCP port that is free on 127.0.0.1
#   start_test_postgres DIR PORT  start a throwaway server with its files in DIR
#   stop_test_postgres DIR        stop it and remove DIR
#
# The throwaway server is set up like the Go package localpg sets up its own:
# initdb -U postgres --auth=trust -E UTF8 --locale=C, listening on 127.0.0.1
# only, Unix socket in DIR, shared_buffers=128MB, fsync and synchronous_commit
# left on; max_connections=300 (localpg's default is 200). As root, initdb and
# postgres run as the `postgres` OS user, since PostgreSQL refuses to run as
# root.
# pg_stat_statements is preloaded when the server has it (tests compare the
# statements sent with the real pgbench's).
set -euo pipefail

# Where Debian's postgresql-NN packages put the server binaries (not on $PATH).
STAMPEDE_PG_LIB_DIR=${STAMPEDE_PG_LIB_DIR:-/usr/lib/postgresql}

log() { printf '==> %s\n' "$*" >&2; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# has_server_binaries DIR: DIR holds executable initdb, pg_ctl and postgres.
has_server_binaries() {
	local b
	for b in initdb pg_ctl postgres; do
		[ -f "$1/$b" ] && [ -x "$1/$b" ] || return 1
	done
}

# pg_bin_dir prints the directory with the PostgreSQL server binaries: the
# first $PATH entry holding initdb, pg_ctl and postgres, else the highest
# version under /usr/lib/postgresql/*/bin (the same search as
# localpg.FindBinDir). Fails, printing nothing, if there is none.
pg_bin_dir() {
	local dir
	local -a path_dirs
	IFS=: read -r -a path_dirs <<<"${PATH:-}"
	for dir in ${path_dirs[@]+"${path_dirs[@]}"}; do
		case $dir in /*) ;; *) continue ;; esac # relative entries are ignored
		if has_server_binaries "$dir"; then
			printf '%s\n' "$dir"
			return 0
		fi
	done
	local versions
	versions=$(
		shopt -s nullglob
		for dir in "$STAMPEDE_PG_LIB_DIR"/*/bin; do
			basename "$(dirname "$dir")"
		done | sort -t. -k1,1nr -k2,2nr
	)
	local v
	for v in $versions; do
		dir=$STAMPEDE_PG_LIB_DIR/$v/bin
		if has_server_binaries "$dir"; then
			printf '%s\n' "$dir"
			return 0
		fi
	done
	return 1
}

# apt_install PKG...: install Debian packages, non-interactively (with sudo
# when not root).
apt_install() {
	command -v apt-get >/dev/null 2>&1 ||
		die "apt-get is not available: install $* yourself"
	local -a sudo=()
	if ! is_root; then
		command -v sudo >/dev/null 2>&1 ||
			die "not root and no sudo: install them as root with \`apt-get install -y $*\`"
		sudo=(sudo)
	fi
	${sudo[@]+"${sudo[@]}"} apt-get update -q ||
		die "apt-get update failed"
	${sudo[@]+"${sudo[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" ||
		die "apt-get install -y $* failed"
}

# ensure_postgres installs PostgreSQL from Debian's packages unless its
# server binaries are already there, and makes sure that, as root, the
# `postgres` OS user exists to run them. Does nothing when all is in place.
ensure_postgres() {
	local bin
	if ! bin=$(pg_bin_dir); then
		log "installing PostgreSQL from Debian packages"
		apt_install postgresql
		bin=$(pg_bin_dir) ||
			die "PostgreSQL was installed but initdb, pg_ctl and postgres are neither on \$PATH nor in $STAMPEDE_PG_LIB_DIR/*/bin"
		log "PostgreSQL server binaries installed in $bin"
	fi
	if is_root && ! id -u postgres >/dev/null 2>&1; then
		# Debian's package creates this user; binaries from elsewhere may not.
		log "creating the postgres OS user (PostgreSQL refuses to run as root)"
		useradd --system --user-group --home-dir /var/lib/postgresql --shell /bin/bash postgres ||
			die "could not create the postgres OS user"
	fi
}

# ensure_haproxy installs HAProxy from Debian's packages unless it is on
# $PATH: the tests start it (in the foreground, as a child process) in front
# of several throwaway PostgreSQL servers.
ensure_haproxy() {
	command -v haproxy >/dev/null 2>&1 && return 0
	log "installing HAProxy from Debian packages"
	apt_install haproxy
	command -v haproxy >/dev/null 2>&1 || die "HAProxy was installed but haproxy is not on \$PATH"
}

# ensure_sysbench installs sysbench from Debian's packages unless it is on
# $PATH: the tests of the sysbench form run the real tool on the same command
# line and compare what it prints with what stampede prints.
ensure_sysbench() {
	command -v sysbench >/dev/null 2>&1 && return 0
	log "installing sysbench from Debian packages"
	apt_install sysbench
	command -v sysbench >/dev/null 2>&1 || die "sysbench was installed but sysbench is not on \$PATH"
}

# ensure_sysstat installs sysstat (sar, iostat, mpstat) from Debian's
# packages unless iostat is on $PATH: the telemetry test compares its CPU
# and disk figures with theirs.
ensure_sysstat() {
	command -v iostat >/dev/null 2>&1 && command -v sar >/dev/null 2>&1 && command -v mpstat >/dev/null 2>&1 && return 0
	log "installing sysstat from Debian packages"
	apt_install sysstat
	command -v iostat >/dev/null 2>&1 || die "sysstat was installed but iostat is not on \$PATH"
}

# ensure_container_tools installs buildah, podman and runc from Debian's
# packages unless all three are on $PATH: scripts/image builds the image
# with buildah, and its test runs it with podman on the runc runtime (crun,
# podman's default, refuses a hybrid cgroup layout).
ensure_container_tools() {
	command -v buildah >/dev/null 2>&1 && command -v podman >/dev/null 2>&1 &&
		{ command -v runc >/dev/null 2>&1 || [ -x /usr/sbin/runc ]; } && return 0
	log "installing buildah, podman and runc from Debian packages"
	apt_install buildah podman runc
	command -v buildah >/dev/null 2>&1 || die "buildah was installed but buildah is not on \$PATH"
	command -v podman >/dev/null 2>&1 || die "podman was installed but podman is not on \$PATH"
}

# ensure_chromium installs Chromium from Debian's packages unless it is
# there: the dashboard's browser test drives it (chromedp). When it cannot
# be installed, the test is skipped and says so: STAMPEDE_NO_CHROMIUM
# holds why.
ensure_chromium() {
	command -v chromium >/dev/null 2>&1 && return 0
	log "installing chromium from Debian packages (the dashboard's browser test)"
	if ! (apt_install chromium) || ! command -v chromium >/dev/null 2>&1; then
		export STAMPEDE_NO_CHROMIUM="chromium could not be installed with apt-get (see above)"
		log "warning: $STAMPEDE_NO_CHROMIUM: the dashboard's browser test is skipped"
	fi
}

# free_port prints a TCP port on 127.0.0.1 that nothing listens on, outside
# Linux's default ephemeral range (32768-60999).
free_port() {
	local _ port
	for _ in $(seq 1 100); do
		port=$((20000 + RANDOM % 12000))
		# A successful connection means the port is taken.
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			printf '%s\n' "$port"
			return 0
		fi
	done
	die "no free TCP port found on 127.0.0.1"
}

# as_server_user CMD...: run CMD as the `postgres` OS user when root, else as
# ourselves.
as_server_user() {
	if is_root; then
		if command -v runuser >/dev/null 2>&1; then
			runuser -u postgres -- "$@"
		else
			setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"
		fi
	else
		"$@"
	fi
}

# start_test_postgres DIR PORT starts a throwaway PostgreSQL server on
# 127.0.0.1:PORT with all its files (data directory, logs, Unix socket) in
# DIR, which is created if needed and must be empty. The superuser is
# `postgres` with trust authentication: connect with
# postgresql://postgres@127.0.0.1:PORT/postgres?sslmode=disable.
# Stop it with stop_test_postgres DIR.
start_test_postgres() {
	[ $# -eq 2 ] || die "usage: start_test_postgres DIR PORT"
	local dir=$1 port=$2 bin
	bin=$(pg_bin_dir) || die "PostgreSQL server binaries (initdb, pg_ctl) not found: install them with \`apt-get install -y postgresql\`"
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd -P)
	if is_root; then
		id -u postgres >/dev/null 2>&1 || die "no postgres OS user to run PostgreSQL as (it refuses to run as root): run ensure_postgres"
		chown -R postgres: "$dir"
		as_server_user test -x "$dir" ||
			die "the postgres OS user cannot reach $dir: use a directory under a world-traversable path such as /tmp (check \$TMPDIR)"
	fi
	local data=$dir/data
	log "starting PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port (files in $dir)"
	if ! (cd "$dir" && as_server_user env LC_ALL=C LANG=C "$bin/initdb" -D "$data" -U postgres \
		--auth=trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1); then
		sed 's/^/    /' "$dir/initdb.log" | tail -n 20 >&2
		die "initdb failed (output above)"
	fi
	# The socket path (DIR/.s.PGSQL.PORT) must fit in 107 bytes; otherwise
	# do without a Unix socket, as localpg does: clients use TCP anyway.
	local sockdir=$dir
	if [ $((${#dir} + 15)) -gt 107 ]; then
		sockdir=
	fi
	cat >"$data/stampede.conf" <<EOF
# Written by stampede's scripts/lib.sh (throwaway test server); overrides postgresql.conf.
listen_addresses = '127.0.0.1'
max_connections = '300'
port = $port
shared_buffers = '128MB'
unix_socket_directories = '$sockdir'
EOF
	# pg_stat_statements, when the server has it: tests compare the
	# statements stampede sends with those the real pgbench sends
	# (TestSameStatementsAsPgbench). Loaded, it does nothing until a
	# database creates the extension but count each statement's calls.
	# (The binaries may be links, /usr/local/bin/postgres to Debian's.)
	local libdir
	libdir=$(dirname "$(dirname "$(readlink -f "$bin/postgres")")")/lib
	if [ -f "$libdir/pg_stat_statements.so" ]; then
		printf "shared_preload_libraries = 'pg_stat_statements'\n" >>"$data/stampede.conf"
	fi
	printf "\n# Added by stampede's scripts/lib.sh: settings for a throwaway server.\ninclude 'stampede.conf'\n" >>"$data/postgresql.conf"
	# The role stampede_pw_user must log in with a password (scram-sha-256),
	# so the tests can check wrong-password errors and redaction; every
	# other role is trusted.
	{
		printf 'host all stampede_pw_user 127.0.0.1/32 scram-sha-256\n'
		cat "$data/pg_hba.conf"
	} >"$data/pg_hba.conf.new" && mv "$data/pg_hba.conf.new" "$data/pg_hba.conf"
	if is_root; then
		chown postgres: "$data/stampede.conf" "$data/pg_hba.conf"
	fi
	# pg_ctl starts postgres in a session of its own: a Ctrl-C in the
	# terminal does not reach it; stop_test_postgres does.
	if ! (cd "$dir" && as_server_user env LC_ALL=C LANG=C "$bin/pg_ctl" -D "$data" -l "$dir/postgres.log" \
		-w -t 30 start >/dev/null 2>&1); then
		sed 's/^/    /' "$dir/postgres.log" 2>/dev/null | tail -n 20 >&2 || true
		die "PostgreSQL did not start on 127.0.0.1:$port (server log above)"
	fi
}

# server_cpu DIR prints the CPU seconds (user + system) the server started
# by start_test_postgres DIR has used: the postmaster's and its ended
# backends' (those still running are not counted); nothing if it does not
# run.
server_cpu() {
	local pid
	pid=$(head -n 1 "$1/data/postmaster.pid" 2>/dev/null) || return 0
	[ -r "/proc/$pid/stat" ] || return 0
	# The fields after the command's ") ": utime is the 12th, cstime the 15th.
	sed 's/.*) //' "/proc/$pid/stat" | awk -v hz="$(getconf CLK_TCK)" '{printf "%.0f\n", ($12 + $13 + $14 + $15) / hz}'
}

# stop_test_postgres DIR stops the server started by start_test_postgres
# DIR (fast shutdown; killed if that takes over 30 s) and removes DIR.
# Safe to call when nothing runs there, or twice.
stop_test_postgres() {
	[ $# -eq 1 ] || die "usage: stop_test_postgres DIR"
	local dir=$1 data=$1/data bin pid
	if [ -f "$data/postmaster.pid" ]; then
		pid=$(head -n 1 "$data/postmaster.pid" 2>/dev/null || true)
		bin=$(pg_bin_dir || true)
		if [ -z "$bin" ] || ! (cd / && as_server_user "$bin/pg_ctl" -D "$data" -m fast -w -t 30 stop >/dev/null 2>&1); then
			if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
				warn "PostgreSQL (pid $pid) did not stop; killing it"
				kill -QUIT "$pid" 2>/dev/null || true
				sleep 2
				kill -KILL "$pid" 2>/dev/null || true
			fi
		fi
	fi
	rm -rf "$dir"
}

# YCSB 0.17.0's published core (site.ycsb:core:0.17.0) and the
# dependencies its POM names, with their SHA-1 sums as Maven Central
# publishes them (each .jar.sha1): the release whose report the YCSB form
# is compared with (internal/cli's TestYCSBAsReleased).
ycsb_jars=(
	"site/ycsb/core/0.17.0/core-0.17.0.jar d47f6ddaedd1c2e531e5ed73eecdde140d4f7aa9"
	"org/hdrhistogram/HdrHistogram/2.1.4/HdrHistogram-2.1.4.jar 2b0da22320f0ac0bbedc7b9df7881d9853d8a754"
	"org/codehaus/jackson/jackson-core-asl/1.9.4/jackson-core-asl-1.9.4.jar 8d8b2a3e5bc77ee1be67d060b44ac77d48a27d6e"
	"org/codehaus/jackson/jackson-mapper-asl/1.9.4/jackson-mapper-asl-1.9.4.jar 5206191b35112f50b8e25fcbd3f3b84e12e11cee"
	"org/apache/htrace/htrace-core4/4.1.0-incubating/htrace-core4-4.1.0-incubating.jar 12b3e2adda95e8c41d9d45d33db075137871d2e2"
)
ycsb_maven=${STAMPEDE_MAVEN_URL:-https://repo1.maven.org/maven2}

# ensure_ycsb_jars DIR: YCSB 0.17.0's core and its dependencies in DIR,
# each downloaded from Maven Central unless already there, and checked
# against the registry's .sha1 (which must be the sum pinned above).
# Prints the class path (the jars, colon-separated). Installs a Java
# runtime from Debian's packages when there is none.
ensure_ycsb_jars() {
	[ $# -eq 1 ] || die "usage: ensure_ycsb_jars DIR"
	local dir=$1 entry path sum jar got published cp=
	command -v java >/dev/null 2>&1 || {
		log "installing a Java runtime from Debian packages (to run YCSB 0.17.0)"
		apt_install default-jre-headless
	}
	command -v curl >/dev/null 2>&1 || apt_install curl
	mkdir -p "$dir" || die "cannot create $dir"
	for entry in "${ycsb_jars[@]}"; do
		path=${entry% *}
		sum=${entry#* }
		jar=$dir/${path##*/}
		got=
		[ -f "$jar" ] && got=$(sha1sum "$jar" | cut -d' ' -f1)
		if [ "$got" != "$sum" ]; then
			log "downloading ${path##*/} from $ycsb_maven"
			published=$(curl -fsSL --retry 3 --max-time 60 "$ycsb_maven/$path.sha1") ||
				die "cannot download $ycsb_maven/$path.sha1"
			published=${published%% *}
			[ "$published" = "$sum" ] ||
				die "$ycsb_maven/$path.sha1 says $published, not the published $sum"
			curl -fsSL --retry 3 --max-time 300 -o "$jar.part" "$ycsb_maven/$path" ||
				die "cannot download $ycsb_maven/$path"
			got=$(sha1sum "$jar.part" | cut -d' ' -f1)
			[ "$got" = "$sum" ] || {
				rm -f "$jar.part"
				die "${path##*/}: SHA-1 $got, not the registry's $sum"
			}
			mv "$jar.part" "$jar"
		fi
		cp=${cp:+$cp:}$jar
	done
	printf '%s\n' "$cp"
}

# Run as a command: `scripts/lib.sh HELPER [ARGS...]`.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	case ${1:-} in
	ensure_postgres | ensure_haproxy | ensure_sysbench | ensure_sysstat | ensure_container_tools | ensure_ycsb_jars | apt_install | pg_bin_dir | free_port | start_test_postgres | stop_test_postgres)
		"$@"
		;;
	*)
		die "usage: $0 {ensure_postgres|ensure_haproxy|ensure_sysbench|ensure_sysstat|ensure_container_tools|ensure_ycsb_jars DIR|apt_install PKG...|pg_bin_dir|free_port|start_test_postgres DIR PORT|stop_test_postgres DIR}"
		;;
	esac
fi
