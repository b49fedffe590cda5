package mockhost

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentapp/conformance/levels"
)

// Fault is a switch that makes mockhost break one requirement the way a real
// host would get it wrong. Breaks lists the requirement ids it is meant to
// break (what its Description violates); Collateral, filled in by Faults
// from collateral.json, those selftest observed failing beside them. The
// specs of both must fail under the fault, and no other (selftest checks
// both ways); whether the fault is killed is decided on Breaks.
type Fault struct {
	Name        string
	Description string
	Breaks      []string
	// Collateral is what selftest wrote to collateral.json for the fault:
	// requirements outside Breaks that fail under it (a refusal of every
	// package leaves the specs that need an installed app nothing to judge).
	Collateral []string
	// Hostile faults attack the harness itself (hang, crash, garbage, flood).
	Hostile bool
	// Escapes faults leave a process outside the host's process group, in
	// a host process only (mockhost --stdio). They need break no
	// requirement: the run must kill the process and report it
	// (report.json run.escapedProcesses), which selftest checks.
	Escapes bool
	// Indiscriminate lists the refusals this fault gives, or withholds,
	// whatever the spec planted: under it no requirement whose check rests
	// on a refusal of those kinds (levels.Requirement.Refusal) may pass, and
	// selftest proves it.
	Indiscriminate []levels.RefusalKind
}

// Faults returns every fault, sorted by name: each area's list, kept in
// a file next to the code its faults break.
func Faults() []Fault {
	fs := slices.Concat(protocolFaults(), catalogFaults(), verifyFaults(), installFaults(), registryFaults(),
		projectFaults(), readinessFaults(), refusalFaults(), surfaceFaults(), permissionFaults(), agentFaults(), workflowFaults(), evalFaults(),
		dataFaults(), lifecycleFaults(), upgradeFaults(), overlayFaults(), migrationFaults(), backendFaults(), platformFaults(),
		hostileFaults(), heldOutFamilyFaults(), familyAuditFaults())
	collateral := recordedCollateral()
	for i := range fs {
		fs[i].Collateral = collateral[fs[i].Name]
	}
	sort.Slice(fs, func(i, j int) bool { return fs[i].Name < fs[j].Name })
	return fs
}

// Fails lists every requirement whose specs must fail under the fault:
// Breaks, then Collateral.
func (f Fault) Fails() []string {
	return slices.Concat(f.Breaks, f.Collateral)
}

// FaultSet is the set of faults a mockhost runs with.
type FaultSet map[string]bool

// ParseFaults checks fault names, naming an unknown one.
func ParseFaults(names []string) (FaultSet, error) {
	known := map[string]bool{}
	for _, f := range Faults() {
		known[f.Name] = true
	}
	fs := FaultSet{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if !known[n] {
			return nil, fmt.Errorf("unknown fault %q (see `conformance mockhost --list-faults`)", n)
		}
		fs[n] = true
	}
	return fs, nil
}

// Has reports whether fault name is switched on.
func (fs FaultSet) Has(name string) bool { return fs[name] }

// Names lists the faults switched on, sorted.
func (fs FaultSet) Names() []string {
	var out []string
	for n := range fs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
