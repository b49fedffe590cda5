#!/usr/bin/env bash
# run.sh: mutation testing of mockhost, one area at a time (docs/mutation.md).
#
# usage: mockhost/mutation/run.sh OUTDIR [AREA ...]   (default: every area of areas.tsv)
#
# For each area, gremlins mutates only that area's files (every other file is
# excluded) and runs TestSuitesPassAgainstMockhost (build tag `mutation`) with
# MUTATION_LEVELS and MUTATION_LABELS set to the levels and requirements whose
# specs judge that area, so a mutant costs one run of those, not of every
# level. A mutant only another area's specs would kill counts as lived: the
# figures under-claim rather than over-claim. OUTDIR/AREA.json is
# gremlins' report; OUTDIR/summary.md the table docs/mutation.md quotes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${1:?usage: run.sh OUTDIR [AREA ...]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
gremlins=${GREMLINS:-$repo/bin/tools/gremlins}
workers=${MUTATION_WORKERS:-2}
# gremlins times a mutant out at this multiple of the coverage run; a
# mutant's run also compiles and links the test binary, which the short,
# filtered coverage run of one area does not pay for.
only=("$@")
summary=$out/summary.md
[ -f "$summary" ] || {
	echo "| area | killed | lived | timed out | not covered | not viable | efficacy |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
} > "$summary"
grep -v '^#' "$here/areas.tsv" | while IFS=$'\t' read -r area files levels labels; do
	if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx "$area"; then
		continue
	fi
	excludes=()
	for f in "$repo"/mockhost/*.go; do
		name=$(basename "$f")
		if ! [[ $name =~ $files ]]; then
			excludes+=(--exclude-files "(^|/)${name//./\\.}\$")
		fi
	done
	echo "mutation: $area ($levels)" >&2
	[ "$labels" = - ] && labels=
	(cd "$repo" && MUTATION_LEVELS=$levels MUTATION_LABELS=$labels "$gremlins" unleash --tags mutation --workers "$workers" \
		--timeout-coefficient "${MUTATION_TIMEOUT_COEFFICIENT:-20}" "${excludes[@]}" --output "$out/$area.json" ./mockhost) > "$out/$area.log" 2>&1 || true
	jq -r --arg area "$area" '
		def n(s): [.files[].mutations[] | select(.status == s)] | length;
		(n("KILLED")) as $k | (n("LIVED")) as $l |
		"| \($area) | \($k) | \($l) | \(n("TIMED OUT")) | \(n("NOT COVERED")) | \(n("NOT VIABLE")) | \(if $k + $l > 0 then (1000 * $k / ($k + $l) | round / 10 | tostring) + " %" else "—" end) |"
	' "$out/$area.json" >> "$summary"
done
cat "$summary"
