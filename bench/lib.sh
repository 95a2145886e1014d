# bench/lib.sh - helpers of bench/run: timing one command, statistics over
# repetitions, and markdown table rows. Sourced, not run.
#
# Every measured command runs under /usr/bin/time -v (for the peak RSS,
# "Maximum resident set size") and is timed with bash's $EPOCHREALTIME
# around it (microsecond wall clock; /usr/bin/time's own wall clock has 10 ms
# resolution). Its stdout and stderr go to $W/last.out and $W/last.err.

# measure CMD ARGS... : sets M_WALL (seconds), M_RSS (KiB), M_CPU (user + system
# seconds of the command and every child it waited for: the whole process
# tree of a profiler and its program), M_RC (exit status).
measure() {
	local t0 t1
	t0=$EPOCHREALTIME
	/usr/bin/time -v -o "$W/last.time" "$@" >"$W/last.out" 2>"$W/last.err"
	M_RC=$?
	t1=$EPOCHREALTIME
	M_WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
	M_RSS=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$W/last.time")
	M_CPU=$(cpu_s)
	if [ "$M_RC" -ne 0 ]; then
		echo "bench: command failed ($M_RC): $*" >&2
		tail -5 "$W/last.err" >&2
	fi
	return 0
}

# CPU time (user + system, seconds) of the last measured command and its
# children: what a profiler and the program it runs cost together.
cpu_s() {
	awk -F': ' '/User time \(seconds\)/ { u = $2 } /System time \(seconds\)/ { s = $2 }
		END { printf "%.4f", u + s }' "$W/last.time"
}

# The program's own time for its work (spin2 prints "work_s SECONDS").
work_s() {
	awk '/^work_s / { print $2 }' "$W/last.out"
}

# stats V1 V2 ... : prints "median min max" (median of an even count: the
# mean of the middle two).
stats() {
	printf '%s\n' "$@" | sort -g | awk '
		{ v[NR] = $1 }
		END {
			if (NR == 0) { print "nan nan nan"; exit }
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.6g %.6g %.6g\n", m, v[1], v[NR]
		}'
}

# Median only.
median() {
	stats "$@" | awk '{ print $1 }'
}

# fmt_s "median min max" -> "0.123 s (0.120-0.130)"; fmt_ms the same in ms.
fmt_s() {
	echo "$1" | awk '{ printf "%.3f (%.3f-%.3f)", $1, $2, $3 }'
}
fmt_ms() {
	echo "$1" | awk '{ printf "%.1f (%.1f-%.1f)", $1 * 1000, $2 * 1000, $3 * 1000 }'
}
# fmt_ms1 "median min max" of milliseconds -> "12.3 (12.1-12.5)".
fmt_ms1() {
	echo "$1" | awk '{ printf "%.1f (%.1f-%.1f)", $1, $2, $3 }'
}
# task_clock_ms CMD ARGS... : CPU milliseconds of the command, every thread
# (perf stat's task-clock: microsecond resolution, where /usr/bin/time has
# 10 ms); its output is dropped.
task_clock_ms() {
	perf stat -x, -e task-clock -o "$W/last.stat" -- "$@" >/dev/null 2>&1
	awk -F, '$3 == "task-clock" { print $1; exit }' "$W/last.stat"
}
# wall_ms CMD ARGS... : wall-clock milliseconds of the command.
wall_ms() {
	local t0=$EPOCHREALTIME
	"$@" >/dev/null 2>&1
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f\n", (b - a) * 1000 }'
}
# fmt_mb "median min max" of KiB -> "12.3 (12.1-12.5)" in MiB.
fmt_mb() {
	echo "$1" | awk '{ printf "%.1f (%.1f-%.1f)", $1 / 1024, $2 / 1024, $3 / 1024 }'
}

# ratio A B : A / B with 2 decimals ("-" when B is 0 or missing).
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.2f", a / b }'
}
# speedup A B : B / A, "12.3x".
speedup() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 == 0) print "-"; else printf "%.1fx", b / a }'
}

# speedup_ps A_S A_N B_S B_N : (B_S / B_N) / (A_S / A_N), time per sample, "12.3x".
speedup_ps() {
	awk -v a="$1" -v an="$2" -v b="$3" -v bn="$4" \
		'BEGIN { if (a + 0 == 0 || an + 0 == 0 || bn + 0 == 0) print "-"; else printf "%.1fx", (b / bn) / (a / an) }'
}

# row CELL... : one markdown table row, to stdout and the results file.
row() {
	local line="|" c
	for c in "$@"; do line+=" $c |"; done
	echo "$line" | tee -a "$RESULTS"
}
# hdr CELL... : a table header row and its separator.
hdr() {
	local sep="|" c
	echo | tee -a "$RESULTS"
	row "$@"
	for c in "$@"; do sep+="---|"; done
	echo "$sep" | tee -a "$RESULTS"
}
# say TEXT : a line of the results (markdown), also shown.
say() {
	echo "$*" | tee -a "$RESULTS"
}
# progress TEXT : shown on stderr only.
progress() {
	echo "bench: $*" >&2
}

# tdrec_info_field FILE KEY : a top-level number from tdrec info --json.
tdrec_info_field() {
	"$TDREC" info --json "$1" 2>/dev/null |
		awk -v k="\"$2\":" '$1 == k { gsub(/[,]/, "", $2); print $2; exit }'
}

# perf_samples FILE : SAMPLE records in a perf.data file (aggregated stats).
perf_samples() {
	perf report -i "$1" --stats 2>/dev/null | awk '/SAMPLE events:/ { print $3; exit }'
}

# perf_lost FILE : "Total Lost Samples" of perf report (PERF_RECORD_LOST and
# PERF_RECORD_LOST_SAMPLES), 0 when none.
perf_lost() {
	local n
	n=$(perf report -i "$1" --stdio --sort pid 2>/dev/null |
		awk '/Total Lost Samples:/ { print $NF; exit }')
	echo "${n:-0}"
}

# us_per_sample CPU_S BARE_CPU_S SAMPLES : CPU microseconds above the bare
# program's per sample ("-" without samples).
us_per_sample() {
	awk -v c="$1" -v b="$2" -v n="$3" 'BEGIN { if (n + 0 == 0) print "-"; else printf "%.1f", (c - b) * 1e6 / n }'
}

# lost_pct LOST SAMPLES : lost as a percentage of lost + samples.
lost_pct() {
	awk -v l="${1:-0}" -v n="${2:-0}" 'BEGIN { if (n + l == 0) print "-"; else printf "%.3f", 100 * l / (n + l) }'
}

# file_size FILE
file_size() {
	stat -c %s "$1"
}
