#!/usr/bin/env bash
# measure.sh: run a batch of held-out host bugs against the conformance harness.
#
# usage: mockhost/heldout/measure.sh [BATCH_DIR] [PATCH_NAME ...]
#   BATCH_DIR   a folder of NN-slug.patch files (default: the newest folder under mockhost/heldout/)
#   PATCH_NAME  measure only these patches (file names without .patch); default: every patch
#   RESULTS_NAME (environment) the file the table goes to; default RESULTS.md
#   MEASURE_JOBS (environment) patches measured at once; default 1
#
# For each patch: a fresh copy of the repository's committed tree (git archive HEAD) in a temp
# folder, the patch applied, its witness run (go test ./mockhost -run Witness), ./cmd/conformance
# built, and `conformance run --out DIR --quiet` (embedded mockhost, every judged level) run once.
# A bug is KILLED when any requirement of report.json ends failed, blocked or error; it SURVIVES
# when none does. MEASURE_JOBS patches run at once (default 1); each patch's row is kept in its
# folder under the work folder, and BATCH_DIR/RESULTS.md is written once every patch is measured.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(git -C "$here" rev-parse --show-toplevel)
batch=${1:-$(ls -d "$here"/*/ | sort | tail -1)}
batch=$(cd "$batch" && pwd)
shift || true
only=("$@")
# RESULTS_NAME names the table another measurement of the same batch
# writes (RESULTS-after-fixes.md), so the first measurement is kept.
results=$batch/${RESULTS_NAME:-RESULTS.md}
work=$(mktemp -d /tmp/heldout-measure.XXXXXX)
log=$work/measure.log
echo "work folder: $work" >&2

field() { # field FILE NAME: the first line of a "# Name: ..." header entry
	sed -n "s/^# $2: //p" "$1" | head -1 | sed 's/|/\\|/g'
}

{
	echo "# Held-out batch $(basename "$batch"): results"
	echo
	echo "Measured $(date -u +%Y-%m-%dT%H:%MZ) from commit $(git -C "$repo" rev-parse --short HEAD) with mockhost/heldout/measure.sh."
	echo "KILLED: at least one requirement ended failed, blocked or error. SURVIVED: the run passed."
	echo "The clause column gives the first line of each patch header's \`Clause:\`; the whole quote is in the patch."
	echo
	echo "| bug | area | family | clause | witness shown | exit | verdict: killed by (failed / blocked / error) |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
} > "$results.tmp"
# measure_one NAME: one patch, measured in its own copy of the repository;
# its table row goes to WORK/NAME/row and its verdict word to WORK/NAME/verdict.
measure_one() {
	local name=$1 patch=$batch/$1.patch dir=$work/$1
	mkdir -p "$dir/repo"
	git -C "$repo" archive HEAD | tar -x -C "$dir/repo"
	local area family clause shown rc start secs ids verdict word=survived
	area=$(field "$patch" Area); family=$(field "$patch" Family); clause=$(field "$patch" Clause)
	# A batch is written against the tree of its day; mockhost moves on (fault
	# guards are added next to the same lines), so a patch that no longer
	# applies exactly is applied by GNU patch with its context fuzzed.
	if ! (cd "$dir/repo" && git apply "$patch") >"$dir/apply.log" 2>&1 &&
		! (cd "$dir/repo" && patch -p1 --fuzz=2 --no-backup-if-mismatch < "$patch") >>"$dir/apply.log" 2>&1; then
		echo "| $name | $area | $family | $clause | — | — | patch does not apply |" > "$dir/row"
		echo unapplied > "$dir/verdict"
		return
	fi
	shown=no
	if (cd "$dir/repo" && go test ./mockhost -count=1 -run Witness) >"$dir/witness.log" 2>&1; then shown=yes; fi
	if ! (cd "$dir/repo" && go build -o "$dir/conformance" ./cmd/conformance) >"$dir/build.log" 2>&1; then
		echo "| $name | $area | $family | $clause | $shown | — | does not build |" > "$dir/row"
		echo unbuilt > "$dir/verdict"
		return
	fi
	start=$(date +%s)
	(cd "$dir/repo" && "$dir/conformance" run --out "$dir/report" --quiet) >"$dir/run.log" 2>&1
	rc=$?
	secs=$(( $(date +%s) - start ))
	ids=$(python3 - "$dir/report/report.json" <<'PY'
import json, sys
try:
    r = json.load(open(sys.argv[1]))
except Exception as e:
    print("NO-REPORT"); sys.exit(0)
bad = [f"{q['id']} ({q['outcome']})" for q in r.get("requirements", []) if q.get("outcome") in ("failed", "blocked", "error")]
print(", ".join(bad))
PY
)
	if [ "$ids" = "NO-REPORT" ]; then
		verdict="no report (exit $rc): see $dir/run.log"
		[ $rc -ne 0 ] && word=killed && verdict="KILLED (run failed without a report, exit $rc)"
	elif [ -n "$ids" ]; then
		word=killed; verdict="KILLED by $ids"
	else
		verdict="**SURVIVED**"
	fi
	echo "| $name | $area | $family | $clause | $shown | $rc (${secs}s) | $verdict |" > "$dir/row"
	echo "$word" > "$dir/verdict"
	echo "$name: witness=$shown exit=$rc $verdict" | tee -a "$log" >&2
}
export -f measure_one field
export batch work repo log

names=()
for patch in "$batch"/*.patch; do
	name=$(basename "$patch" .patch)
	if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx "$name"; then
		continue
	fi
	names+=("$name")
done
# MEASURE_JOBS patches at a time (default 1): each is a whole conformance
# run, so two at once on two cores take about the time of one and a half.
printf '%s\n' "${names[@]}" | xargs -P "${MEASURE_JOBS:-1}" -I{} bash -c 'measure_one "$1"' _ {}
killed=0; total=0; survived=()
for name in "${names[@]}"; do
	total=$((total + 1))
	cat "$work/$name/row" >> "$results.tmp"
	case $(cat "$work/$name/verdict") in
	killed) killed=$((killed + 1)) ;;
	survived) survived+=("$name") ;;
	esac
done
{
	cat "$results.tmp"
	echo
	echo "**Score: $killed killed / $total measured** (survivors: ${survived[*]:-none})."
	echo
	echo "Per-bug logs (witness, build, run, report) were kept in $work."
} > "$results"
rm -f "$results.tmp"
echo "score: $killed killed / $total" >&2
