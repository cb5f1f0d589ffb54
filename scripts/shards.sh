# shellcheck shell=bash
# Sourced by scripts/test: runs internal/cli's tests (about two thirds of the
# suite's time, most of it spent waiting on servers and timed runs) in
# several processes at once, each test in a process of its own, so that the
# suite takes minutes instead of the best part of an hour.
#
#   run_cli_tests DIR SHARDS   build the package's test binary and the
#                              stampede binary once (into DIR), start SHARDS
#                              throwaway PostgreSQL servers, and let SHARDS
#                              workers take the tests from one queue, longest
#                              first (scripts/testdata/cli-test-seconds, as
#                              measured by this function; a test not listed
#                              counts 30 s); print go test's summary line for
#                              the package, each failed test's output, and the
#                              slowest tests; non-zero if any test failed.
#
# Each worker has a server of its own: some tests limit, watch or restart
# the server's processes, or read server-wide statistics, which another
# test on the same server at the same time would disturb. And cgroups of
# its own (STAMPEDE_CGROUP_PARENT=stampede-test-K): every run removes the
# groups a killed run left under its parent, which a test of killed runs
# on another worker expects to see removed by its own next run.
# The seconds every test took are written to DIR/test-seconds, in the
# format of scripts/testdata/cli-test-seconds (copy it there to refresh the
# order).

# cli_next_test QUEUE: print and remove the first name of the queue file
# (under a lock; several workers share it); non-zero when it is empty.
cli_next_test() {
	local queue=$1 name
	{
		flock 9
		name=$(head -n 1 "$queue")
		[ -n "$name" ] && sed -i 1d "$queue"
	} 9>"$queue.lock"
	[ -n "$name" ] || return 1
	printf '%s\n' "$name"
}

# cli_worker DIR K URL: run tests from DIR/queue against the server at URL
# until the queue is empty, each as DIR/cli.test -test.run '^NAME$' in the
# package's directory; record "NAME SECONDS STATUS CPU" in DIR/done.K (CPU:
# the CPU seconds of the test and the processes it ran, not its server's)
# and the output in DIR/out/NAME.
cli_worker() {
	local dir=$1 k=$2 url=$3 name start status TIMEFORMAT='%U %S'
	while name=$(cli_next_test "$dir/queue"); do
		start=$(date +%s.%N)
		status=0
		{ time {
			(cd internal/cli && STAMPEDE_TEST_DATABASE=$url STAMPEDE_TEST_BINARY=$dir/stampede STAMPEDE_CGROUP_PARENT=stampede-test-$k \
				"$dir/cli.test" -test.run "^${name}\$" -test.count=1 -test.timeout=30m) \
				>"$dir/out/$name" 2>&1 || status=$?
		}; } 2>"$dir/cpu.$k"
		awk -v s="$start" -v e="$(date +%s.%N)" -v n="$name" -v c="$status" -v cpu="$(cat "$dir/cpu.$k")" \
			'BEGIN { split(cpu, u, " "); printf "%s %.1f %s %.1f\n", n, e - s, c, u[1] + u[2] }' >>"$dir/done.$k"
	done
}

run_cli_tests() {
	local dir=$1 shards=$2 module k start elapsed failed=0 name
	module=$(awk '$1 == "module" {print $2; exit}' go.mod)
	mkdir -p "$dir/out"
	start=$(date +%s)
	go test -c -o "$dir/cli.test" ./internal/cli || return 1
	go build -o "$dir/stampede" ./cmd/stampede || return 1
	# The queue: every top-level test, longest first.
	(cd internal/cli && "$dir/cli.test" -test.list '.*') | grep '^Test' |
		awk -v known=scripts/testdata/cli-test-seconds '
			BEGIN { while ((getline line < known) > 0) { split(line, f, " "); secs[f[1]] = f[2] } }
			{ print ($1 in secs ? secs[$1] : 30), $1 }' |
		sort -k1,1 -g -r | awk '{print $2}' >"$dir/queue"
	local total
	total=$(wc -l <"$dir/queue")
	local -a urls=() pids=()
	for ((k = 1; k <= shards; k++)); do
		local port
		port=$(free_port)
		start_test_postgres "$dir/pg$k" "$port"
		urls+=("postgresql://postgres@127.0.0.1:$port/postgres?sslmode=disable")
	done
	log "internal/cli: $total tests, $shards at a time, each worker with its own server"
	for ((k = 1; k <= shards; k++)); do
		cli_worker "$dir" "$k" "${urls[k - 1]}" &
		pids+=($!)
	done
	for k in "${pids[@]}"; do wait "$k" || true; done
	local server_secs=0
	for ((k = 1; k <= shards; k++)); do
		server_secs=$((server_secs + $(server_cpu "$dir/pg$k" || echo 0)))
		stop_test_postgres "$dir/pg$k" || true
	done
	cat "$dir"/done.* | sort -k2,2 -g -r >"$dir/test-seconds"
	elapsed=$(($(date +%s) - start))
	while read -r name _ status _; do
		[ "$status" = 0 ] && continue
		failed=$((failed + 1))
		cat "$dir/out/$name"
	done <"$dir/test-seconds"
	if [ "$(wc -l <"$dir/test-seconds")" -ne "$total" ]; then
		echo "internal/cli: $(wc -l <"$dir/test-seconds") of $total tests ran"
		failed=$((failed + 1))
	fi
	log "internal/cli's slowest tests (seconds; CPU seconds of the test's own processes, not its server's):"
	head -n 10 "$dir/test-seconds" | awk '{printf "    %-50s %7.1f %7.1f\n", $1, $2, $4}' >&2
	awk -v s="$server_secs" '{w += $2; c += $4} END {printf "==> internal/cli: %.0f test seconds, %.0f CPU seconds in the tests'"'"' own processes, %s in their servers\n", w, c, s}' "$dir/test-seconds" >&2
	if [ "$failed" -gt 0 ]; then
		printf 'FAIL\t%s/internal/cli\t%ds\n' "$module" "$elapsed"
		return 1
	fi
	printf 'ok  \t%s/internal/cli\t%ds (%d tests, %d at a time)\n' "$module" "$elapsed" "$total" "$shards"
}
