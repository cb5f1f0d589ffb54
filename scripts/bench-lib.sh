# shellcheck shell=bash
# The verdicts and parsers of scripts/bench, apart so that a test
# (scripts/bench_test.go) can check them without running a stage.
#
# Every verdict goes through figure (via verdict) into the summary; a
# figure that could not be measured is n/a, which is MISSED when it has a
# target. The parsers print n/a for a figure that is not in their input
# (never 0), and the arithmetic helpers print n/a when an operand is n/a
# or a divisor is 0, so that a missing measurement reaches figure as one.

# isnum V succeeds when V is a number.
isnum() { [[ ${1:-} =~ ^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; }

# verdict VALUE OP TARGET prints the mark of a figure: MET or MISSED for a
# target (OP one of <, <=, >, >=, TARGET a number), MISSED for a VALUE that
# was not measured (n/a, empty, or not a number: a failed or garbled
# measurement) with a target (what was not measured did not meet it),
# INFO for a figure with no target (OP and TARGET "-"), NOT MEASURED for
# one with no target that was not measured. It fails on a bad OP or
# TARGET (the script's own mistake), never on a VALUE.
verdict() {
	local value=$1 op=$2 target=$3
	case $op in
	'<' | '<=' | '>' | '>=')
		isnum "$target" || {
			echo "verdict: target $target is not a number: targets are fixed numbers" >&2
			return 2
		}
		;;
	-)
		[ "$target" = - ] || {
			echo "verdict: no operator but a target $target" >&2
			return 2
		}
		;;
	*)
		echo "verdict: the target's operator is $op; use <, <=, >, >= or -" >&2
		return 2
		;;
	esac
	if ! isnum "$value"; then
		if [ "$op" = - ]; then echo "NOT MEASURED"; else echo MISSED; fi
		return 0
	fi
	if [ "$op" = - ]; then
		echo INFO
	elif awk -v v="$value" -v t="$target" -v op="$op" 'BEGIN {
		exit !((op == "<" && v < t) || (op == "<=" && v <= t) || (op == ">" && v > t) || (op == ">=" && v >= t)) }'; then
		echo MET
	else
		echo MISSED
	fi
}

# figure NAME VALUE UNIT OP TARGET [COMPARISON] prints a figure beside its
# target and its verdict, and records it in $figures under $STAGE for the
# summary (see scripts/bench's header).
figure() {
	[ $# -ge 5 ] && [ $# -le 6 ] || die "figure: want NAME VALUE UNIT OP TARGET [COMPARISON], got $# arguments: $*"
	local name=$1 value=$2 unit=$3 op=$4 target=$5 cmp=${6:-} status text
	status=$(verdict "$value" "$op" "$target") || die "figure $name: see above"
	if [ "$op" = - ]; then text="no target"; else text="target $op $target"; fi
	if ! isnum "$value"; then
		# Not measured: n/a, or an empty or garbled value (never 0).
		case $value in
		n/a | '') cmp="not measured${cmp:+; $cmp}" ;;
		*) cmp="not measured (read \"$(printf '%s' "$value" | tr -c '[:print:]' ' ' | cut -c1-20)\")${cmp:+; $cmp}" ;;
		esac
		value=n/a
	fi
	printf '%-56s %12s %-9s (%s%s) %s\n' "$name:" "$value" "$unit" "$text" "${cmp:+; $cmp}" "$status"
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${STAGE:-}" "$name" "$value" "$unit" "${text#target }" "$status" >>"$figures"
}

# summary prints every figure of this invocation with its target and mark.
summary() {
	[ -s "$figures" ] || return 0
	printf '\n## summary: every figure of this invocation (MISSED is a finding; the script still exits 0)\n'
	awk -F'\t' '{printf "%-10s %-56s %12s %-9s %-11s %s\n", $1, $2, $3, $4, $5, $6; n[$6]++; if ($3 == "n/a" && $6 == "MISSED") nm++}
		END {printf "%d figures: %d MET, %d MISSED (%d of them not measured), %d NOT MEASURED, %d with no target\n", NR, n["MET"], n["MISSED"], nm, n["NOT MEASURED"], n["INFO"]}' "$figures"
	printf 'load average at end: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
}

# calc FORMAT EXPR A B... prints EXPR (Python, over a, b, ...) formatted
# with FORMAT, or n/a when an operand is n/a or empty, or EXPR divides by 0.
calc() {
	python3 - "$@" <<'PY'
import sys
fmt, expr, args = sys.argv[1], sys.argv[2], sys.argv[3:]
try:
    vals = [float(a) for a in args]
    env = dict(zip("abcdefgh", vals))
    print(fmt % eval(expr, {"__builtins__": {"max": max, "min": min}}, env))
except (ValueError, ZeroDivisionError):
    print("n/a")
PY
}

# time_field FILE N prints the Nth field of the last line of a GNU time
# file (/usr/bin/time -f ... -o FILE), n/a when the file is missing or
# empty or the field is not a number (never 0).
time_field() {
	[ -r "$1" ] || { echo n/a && return 0; }
	awk -v n="$2" 'END {v = $n; if (v ~ /^[0-9]+(\.[0-9]+)?$/) print v; else print "n/a"}' "$1" 2>/dev/null || echo n/a
}
# cpu_of FILE: user+system seconds written by /usr/bin/time -f '%U %S %M'.
cpu_of() { calc '%.2f' 'a + b' "$(time_field "$1" 1)" "$(time_field "$1" 2)"; }
# rss_of FILE: maximum RSS in MiB written by /usr/bin/time -f '%U %S %M'.
rss_of() { calc '%.0f' 'a / 1024' "$(time_field "$1" 3)"; }
# rss_mb FILE: maximum RSS in MB (10^6 bytes) written by /usr/bin/time -f '%U %S %M'.
rss_mb() { calc '%.0f' 'a * 1024 / 1e6' "$(time_field "$1" 3)"; }
# wall_of FILE: elapsed seconds written by /usr/bin/time -f '%e %U %S %M'.
wall_of() { time_field "$1" 1; }
# rss_timed FILE: maximum RSS in MB written by /usr/bin/time -f '%e %U %S %M'.
rss_timed() { calc '%.0f' 'a * 1024 / 1e6' "$(time_field "$1" 4)"; }
# cpu3_of FILE: user+system seconds written by /usr/bin/time -f '%e %U %S %M'.
cpu3_of() { calc '%.2f' 'a + b' "$(time_field "$1" 2)" "$(time_field "$1" 3)"; }

# pg_cpu PID prints the CPU seconds of the PostgreSQL server whose
# postmaster is PID, from $PROC (/proc): the postmaster's own and its
# reaped children's (the backends that exited: utime, stime, cutime,
# cstime of its stat) and its live children's own (the checkpointer,
# background and WAL writers, autovacuum, backends still running); n/a when
# PID's stat cannot be read. The difference of two readings is the
# server's CPU in between, backends that ended included once reaped.
pg_cpu() {
	python3 - "${PROC:-/proc}" "$1" "$(getconf CLK_TCK)" <<'PY'
import os, sys
proc, pid, tck = sys.argv[1], sys.argv[2], float(sys.argv[3])
def fields(p):
    with open(os.path.join(proc, p, "stat")) as f:
        return f.read().rsplit(")", 1)[1].split()  # from field 3 (state)
try:
    f = fields(pid)
except (OSError, IndexError):
    print("n/a")
    sys.exit()
total = sum(int(x) for x in f[11:15])  # utime, stime, cutime, cstime
for p in os.listdir(proc):
    if not p.isdigit() or p == pid:
        continue
    try:
        c = fields(p)
    except (OSError, IndexError):
        continue  # ended meanwhile
    if c[1] == pid:  # ppid
        total += int(c[11]) + int(c[12])
print("%.2f" % (total / tck))
PY
}

# cpu_limit SERVER CLIENTS WALL BUSY CPUS prints which side limited a
# load that took WALL seconds, from the CPU seconds of the server
# (pg_cpu) and of the clients (their user+system), the machine's busy
# share in % (busy_pct) and its CPUs: the cores each kept busy, the other
# processes' (the machine's busy cores less the two), and the verdict.
# A machine at least 90% busy is full: the largest of the three is the
# limit. Below that no CPU is: the load waits (disk, WAL flushes, locks).
cpu_limit() {
	python3 - "$@" <<'PY'
import sys
try:
    srv, cli, wall, busy, cpus = (float(a) for a in sys.argv[1:6])
    s, c = srv / wall, cli / wall
except (ValueError, ZeroDivisionError):
    print("n/a: the server's or the clients' CPU was not measured")
    sys.exit()
o = max(busy / 100 * cpus - s - c, 0.0)
text = "server %.2f of %d cores busy, clients %.2f, other processes %.2f (machine %.0f%% busy)" % (s, cpus, c, o, busy)
if busy >= 90:
    who = max((s, "the server is the limit"), (c, "the clients are the limit"), (o, "other processes are the limit"))[1]
    print("%s: the machine is full and %s" % (text, who))
else:
    print("%s: no CPU is the limit; the load waits (disk, WAL flushes, locks)" % text)
PY
}

# json_num FILE PATH [FORMAT] prints a number of a JSON file (PATH: keys
# joined by dots, fleet.efficiency.min), formatted with FORMAT (%.10g), or
# n/a when the file, the key or the number is missing.
json_num() {
	python3 - "$1" "$2" "${3:-%.10g}" <<'PY'
import json, sys
out = "n/a"
try:
    d = json.load(open(sys.argv[1]))
    for k in sys.argv[2].split("."):
        d = d[k]
    if isinstance(d, (int, float)) and not isinstance(d, bool):
        out = sys.argv[3] % d
except (OSError, ValueError, KeyError, TypeError):
    pass
print(out)
PY
}

# ratio A B prints A/B with two decimals.
ratio() { calc '%.2f' 'a / b' "$1" "$2"; }
# per_op_us CPU_SECONDS COUNT prints microseconds of CPU per operation.
per_op_us() { calc '%.1f' 'a * 1e6 / b' "$1" "$2"; }
# change_pct NEW OLD prints (NEW / OLD - 1), in percent.
change_pct() { calc '%.1f' '100 * (a / b - 1)' "$1" "$2"; }
# millions N prints N/1e6 with two decimals.
millions() { calc '%.2f' 'a / 1e6' "$1"; }
# n0 N prints N rounded, with thousands separators.
n0() { if isnum "$1"; then python3 -c "print('{:,.0f}'.format(float('$1')))"; else echo n/a; fi; }

# median V... prints the median of its arguments; n/a when there are none
# or any is n/a (a round that measured nothing).
median() {
	python3 - "$@" <<'PY'
import statistics, sys
try:
    v = [float(x) for x in sys.argv[1:]]
    print("%.10g" % statistics.median(v) if v else "n/a")
except ValueError:
    print("n/a")
PY
}

# fmtn FORMAT V prints V with a printf FORMAT, or n/a.
fmtn() { if isnum "$2"; then printf "$1" "$2"; else printf '%s' n/a; fi; }

# stampede_rate FILE prints the ops/s and the operation count of the
# summary line of stampede's --format json output, n/a n/a without one.
stampede_rate() {
	python3 - "$1" <<'PY'
import json, sys
out = "n/a n/a"
try:
    for l in open(sys.argv[1]):
        d = json.loads(l)
        if d.get("type") == "summary":
            out = "%.0f %d" % (d["cumulative"]["ops_per_sec"], d["cumulative"]["count"])
except (OSError, ValueError, KeyError):
    pass
print(out)
PY
}

# stampede_errors FILE prints the failed operations of the summary line of
# stampede's --format json output, n/a without one.
stampede_errors() {
	python3 - "$1" <<'PY'
import json, sys
out = "n/a"
try:
    for l in open(sys.argv[1]):
        d = json.loads(l)
        if d.get("type") == "summary":
            out = "%d" % d["cumulative"]["errors"]
except (OSError, ValueError, KeyError):
    pass
print(out)
PY
}

# stampede_field FILE PATH prints a number from the summary line of
# stampede's --format json output: PATH is a key (elapsed_s) or keys
# joined by dots (extra.connect_s, cumulative.errors); n/a without a
# summary line or that figure.
stampede_field() {
	python3 - "$1" "$2" <<'PY'
import json, sys
out = "n/a"
try:
    for l in open(sys.argv[1]):
        d = json.loads(l)
        if d.get("type") == "summary":
            for k in sys.argv[2].split("."):
                d = d[k]
            if isinstance(d, (int, float)) and not isinstance(d, bool):
                out = "%.10g" % d
except (OSError, ValueError, KeyError, TypeError):
    pass
print(out)
PY
}

# held_in_run SAMPLES prints the fewest connections of the samples taken
# while the run was measuring: SAMPLES has one "PHASE COUNT" line per
# sample (PHASE setup before the run's first interval, run until its
# summary, end after; COUNT the server's client backends, or n/a when the
# sample failed). n/a when no sample was taken while measuring, or one of
# those failed.
held_in_run() {
	[ -r "$1" ] || { echo n/a && return 0; }
	awk '$1 == "run" {n++; if ($2 !~ /^[0-9]+$/) bad = 1; else if (min == "" || $2 + 0 < min) min = $2 + 0}
		END {if (n == 0 || bad) print "n/a"; else print min}' "$1"
}

# pacer_figures SUMMARY_JSON prints, from a null-driver YCSB C run's
# summary.json: ops/s, intended p99, service p99, pacer lag p50, p99 and
# max (ms), and the operation count; n/a for each series the run lacks
# (a run without the pacer.lag series has no pacer figure, not a 0 one).
pacer_figures() {
	python3 - "$1" <<'PY'
import json, sys
try:
    s = json.load(open(sys.argv[1]))
except (OSError, ValueError):
    print(" ".join(["n/a"] * 7))
    sys.exit(0)
by = {x["name"]: x for x in s.get("series") or []}
def f(d, k, fmt="%.4f"):
    return fmt % d[k] if d is not None and k in d else "n/a"
t, svc, lag = s.get("total"), by.get("read.service"), by.get("pacer.lag")
print(f(t, "ops_per_sec", "%.0f"), f(t, "p99_ms"), f(svc, "p99_ms"), f(lag, "p50_ms"), f(lag, "p99_ms"), f(lag, "max_ms"), f(t, "count", "%d"))
PY
}

# gotpc_count FILE prints the transactions go-tpc's run reports in its
# [Summary] lines (errors excluded), n/a when there are none.
gotpc_count() {
	[ -r "$1" ] || { echo n/a && return 0; }
	awk '/^\[Summary\]/ && !/ERR/ {for (i = 1; i <= NF; i++) if ($i == "Count:") {gsub(/,/, "", $(i + 1)); s += $(i + 1)}}
		END {if (s > 0) print s; else print "n/a"}' "$1" 2>/dev/null || echo n/a
}

# sysbench_count FILE prints the transactions of sysbench-style output, n/a
# when it has none.
sysbench_count() { [ -r "$1" ] || { echo n/a && return 0; }; awk '/transactions:/ {n = $2} END {if (n > 0) print n; else print "n/a"}' "$1" 2>/dev/null || echo n/a; }
# tps_of FILE prints the transactions per second of sysbench-style output,
# n/a when it has none.
tps_of() { [ -r "$1" ] || { echo n/a && return 0; }; awk '/transactions:/ {gsub(/\(/, "", $3); v = $3} END {if (v > 0) print v; else print "n/a"}' "$1" 2>/dev/null || echo n/a; }
