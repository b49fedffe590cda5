package main

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/agentapp/conformance/levels"
	"github.com/agentapp/conformance/mockhost"
	"github.com/agentapp/conformance/reports"
)

// Variants in selftest: each mockhost variant (a reading the texts allow
// that mockhost does not take by default) runs in a child of its own, as a
// fault does, and must be blamed for nothing: no requirement `failed`, and
// none `blocked` or `error` but those the variant opts out of
// (mockhost.Variant.OptsOut). Each requirement it touches must have been
// judged.

// variantDir is the folder a variant's child writes its report to, beside
// the faults' (a fault is never named so).
func variantDir(name string) string { return "variant-" + name }

// variantLevels are the levels a variant's child certifies: the judged
// levels its requirements are introduced at, restricted to only when
// selftest --level gave some.
func variantLevels(cat *levels.Catalog, v mockhost.Variant, only []string) []string {
	var want []string
	for _, id := range mockhost.Expand(cat, v.Touches) {
		r, ok := cat.Requirement(id)
		if !ok {
			continue
		}
		for _, l := range r.Levels {
			if !slices.Contains(want, l) && cat.CanJudge(l) && (len(only) == 0 || slices.Contains(only, l)) {
				want = append(want, l)
			}
		}
	}
	return want
}

// variantTouched are the requirements a variant touches that the selftest
// judges (judged nil: every one).
func variantTouched(cat *levels.Catalog, v mockhost.Variant, judged map[string]bool) []string {
	var out []string
	for _, id := range mockhost.Expand(cat, v.Touches) {
		if judged == nil || judged[id] {
			out = append(out, id)
		}
	}
	return out
}

// variantFilter is the label filter of a variant's child in the breaks
// scope: the specs of the requirements it touches, as one anchored regular
// expression, which fits more ids in the report's labelFilter
// (reports.MaxLabelFilter) than labels joined with ||: every-reading
// touches nearly every requirement.
func variantFilter(cat *levels.Catalog, v mockhost.Variant) string {
	var ids []string
	for _, id := range mockhost.Expand(cat, v.Touches) {
		ids = append(ids, regexp.QuoteMeta(id))
	}
	return "/^(" + strings.Join(ids, "|") + ")$/"
}

// variantArgs are the `conformance run` arguments of a variant's child
// (the caller adds --out and the host).
func variantArgs(cat *levels.Catalog, v mockhost.Variant, o childOptions) []string {
	var args []string
	lv := variantLevels(cat, v, o.levels)
	if len(lv) == 0 {
		lv = o.levels
	}
	for _, l := range lv {
		args = append(args, "--level", l)
	}
	if o.scope == scopeBreaks {
		args = append(args, "--label-filter", variantFilter(cat, v))
	}
	return args
}

// variantVerdict is a variant case's line.
type variantVerdict struct {
	status string // ACCEPTED | FALSE-BLAME | ERROR
	// blames are the requirements blamed wrongly: failed, or blocked,
	// error, skipped, flaky or interrupted without the variant opting out.
	blames []variantBlame
	// unjudged are touched requirements the child did not judge.
	unjudged []string
}

// variantBlame is one requirement a variant's child did not pass.
type variantBlame struct {
	id      string
	outcome reports.Outcome
	reason  string
}

// judgeVariant judges a variant case: nothing failed, nothing else unpassed
// but what it opts out of, every touched requirement judged.
func judgeVariant(k *selftestCase, cat *levels.Catalog) variantVerdict {
	if k.err != nil || k.report == nil {
		return variantVerdict{status: "ERROR"}
	}
	v := variantVerdict{}
	seen := map[string]reports.Outcome{}
	for _, r := range k.report.Requirements {
		seen[r.ID] = r.Outcome
		switch r.Outcome {
		case reports.Passed, reports.NotRun, reports.NotApplicable:
			continue
		case reports.Blocked, reports.Error:
			if k.variant.OptedOut(r.ID) || unclaimed(cat, k.variant, r.ID) {
				continue
			}
		}
		v.blames = append(v.blames, variantBlame{id: r.ID, outcome: r.Outcome, reason: r.Reason})
	}
	for _, id := range variantTouched(cat, k.variant, k.judged) {
		if o, ok := seen[id]; (!ok || o == reports.NotRun) && !k.variant.OptedOut(id) {
			v.unjudged = append(v.unjudged, id)
		}
	}
	sort.Slice(v.blames, func(i, j int) bool { return v.blames[i].id < v.blames[j].id })
	v.status = "ACCEPTED"
	if len(v.blames) > 0 || len(v.unjudged) > 0 {
		v.status = "FALSE-BLAME"
	}
	return v
}

// unclaimed reports whether requirement id counts in none of the levels a
// variant's host claims (Variant.Claims): a host offers nothing of a level
// it does not claim, so such a requirement may be blocked or error.
func unclaimed(cat *levels.Catalog, v mockhost.Variant, id string) bool {
	r, ok := cat.Requirement(id)
	if !ok || len(v.Claims) == 0 {
		return false
	}
	return !slices.ContainsFunc(v.Claims, func(l string) bool { return cat.InLevel(r, l) })
}

// printVariants prints a line per variant case, and a FALSE-BLAME line per
// requirement blamed wrongly; it returns each case not accepted, named
// with the requirements it was blamed on.
func printVariants(w io.Writer, cases []*selftestCase, cat *levels.Catalog) (blamed []string) {
	accepted := 0
	for _, k := range cases {
		v := judgeVariant(k, cat)
		fmt.Fprintf(w, "%-11s %-30s %s\n", v.status, k.variant.Name, strings.Join(variantTouched(cat, k.variant, k.judged), " "))
		if v.status == "ACCEPTED" {
			accepted++
			continue
		}
		var ids []string
		for _, b := range v.blames {
			ids = append(ids, b.id+" "+string(b.outcome))
			fmt.Fprintf(w, "FALSE-BLAME %s %s: %s: %s\n", k.variant.Name, b.id, b.outcome,
				reports.ForTerminal(reports.TruncateUTF8(firstLine(b.reason), 240)))
		}
		if len(v.unjudged) > 0 {
			ids = append(ids, "not judged: "+strings.Join(v.unjudged, " "))
		}
		if len(ids) == 0 {
			ids = []string{"its child gave no report"}
		}
		blamed = append(blamed, fmt.Sprintf("%s (%s)", k.variant.Name, strings.Join(ids, ", ")))
		if len(v.unjudged) > 0 {
			fmt.Fprintf(w, "            touched but not judged (its specs did not run): %s\n", strings.Join(v.unjudged, " "))
		}
		if k.err != nil {
			fmt.Fprintf(w, "            %v\n%s\n", k.err, indent(lastLines(k.output, 20), "            | "))
		}
	}
	fmt.Fprintf(w, "\nvariants: %d of %d accepted, %d problems\n", accepted, len(cases), len(blamed))
	return blamed
}

// selectVariants picks the variants a selftest runs: those named by
// --variant, or every one when it names none and --fault names none
// either; with --level, those touching a judged requirement.
func selectVariants(named, faults []string, cat *levels.Catalog, judged map[string]bool) ([]mockhost.Variant, error) {
	if len(named) == 0 && len(faults) > 0 {
		return nil, nil
	}
	vs := mockhost.Variants()
	if len(named) > 0 {
		if _, err := mockhost.ParseVariants(named); err != nil {
			return nil, err
		}
		// The names as given: every-reading is one case, not the
		// variants it takes together.
		vs = slices.DeleteFunc(vs, func(v mockhost.Variant) bool { return !slices.Contains(named, v.Name) })
	}
	if judged != nil {
		vs = slices.DeleteFunc(vs, func(v mockhost.Variant) bool { return len(variantTouched(cat, v, judged)) == 0 })
	}
	return vs, nil
}
