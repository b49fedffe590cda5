package agentpkg

import (
	"fmt"

	"github.com/Masterminds/semver/v3"
)

// CodeIncompatibleRuntime: a runtime-backed release declares a lime-runtime
// version the system's lime-runtime does not satisfy (spec 003, Distribution
// flow: "for runtime-backed releases, the host must verify that the system
// lime-runtime satisfies the declared version range").
const CodeIncompatibleRuntime = "incompatible-runtime"

// ModeRuntimeBacked is the install mode of a release that runs on the
// system lime-runtime (spec 000, Install modes).
const ModeRuntimeBacked = "runtime_backed"

// RuntimeMinimum is one lower bound a package declares for the lime-runtime
// it runs on: the member that declares it and its value.
type RuntimeMinimum struct {
	Field   string // "install.runtimeBacked.minVersion"
	Version string // "1.4.0", or "current"
}

// runtimeMinimumFields are the members of the install contract that bound
// the runtime a runtime-backed release runs on (spec 000, Install modes;
// schema app-install): each is read as an inclusive lower bound, and all of
// them must hold (docs/decisions.md, "The system lime-runtime").
var runtimeMinimumFields = [][]string{
	{"runtimeBacked", "minVersion"},
	{"runtime", "minVersion"},
	{"runtime", "distribution", "runtimeBacked", "minVersion"},
}

// RuntimeBacked reports whether the merged manifest m offers the
// runtime-backed install mode.
func RuntimeBacked(m map[string]any) bool {
	install, _ := m["install"].(map[string]any)
	modes, _ := install["modes"].([]any)
	for _, mode := range modes {
		if mode == ModeRuntimeBacked {
			return true
		}
	}
	return false
}

// RuntimeMinimums lists the lime-runtime lower bounds m's install contract
// declares, in runtimeMinimumFields' order.
func RuntimeMinimums(m map[string]any) []RuntimeMinimum {
	var out []RuntimeMinimum
	for _, path := range runtimeMinimumFields {
		var v any = m["install"]
		for _, k := range path {
			obj, _ := v.(map[string]any)
			v = obj[k]
		}
		if s, ok := v.(string); ok {
			field := "install"
			for _, k := range path {
				field += "." + k
			}
			out = append(out, RuntimeMinimum{Field: field, Version: s})
		}
	}
	return out
}

// VerifyRuntime returns an incompatible-runtime finding for each lower bound
// of a runtime-backed package that the system lime-runtime version system
// does not meet. "current", "latest", "*" and "" ask for no version. A bound
// that is no SemVer version is itself refused: the host cannot show it is
// met. SemVer order decides, never string order (1.10.0 is above 1.9.0).
func VerifyRuntime(p *Package, system string) []Finding {
	if !RuntimeBacked(p.Manifest) {
		return nil
	}
	var out []Finding
	have, err := semver.StrictNewVersion(system)
	for _, bound := range RuntimeMinimums(p.Manifest) {
		if anyVersion(bound.Version) {
			continue
		}
		want, werr := semver.NewVersion(bound.Version)
		var problem string
		switch {
		case werr != nil:
			problem = fmt.Sprintf("%s %q is not a version the system lime-runtime can be compared with", bound.Field, bound.Version)
		case err != nil:
			problem = fmt.Sprintf("the system lime-runtime version %q cannot be compared with %s %s", system, bound.Field, bound.Version)
		case have.LessThan(want):
			problem = fmt.Sprintf("the system lime-runtime %s does not satisfy %s %s", system, bound.Field, bound.Version)
		default:
			continue
		}
		out = append(out, finding(CodeIncompatibleRuntime, SeverityError, sourceOf(p, "install"), bound.Field, "%s", problem))
	}
	return out
}
