package agentpkg

import (
	"fmt"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/agentapp/conformance/drivers/protocol"
)

// SDKCapabilities lists the Lime capabilities of the Capability SDK (spec
// 000, Capability SDK table), the profile a full host offers.
func SDKCapabilities() []string {
	return []string{
		"lime.ui", "lime.storage", "lime.files", "lime.agent", "lime.knowledge", "lime.tools",
		"lime.artifacts", "lime.workflow", "lime.policy", "lime.evidence", "lime.secrets",
		"lime.cloudSession", "lime.modelSettings", "lime.branding", "lime.billing", "lime.appUpdates",
		"lime.events",
	}
}

// FullProfile is every SDK capability at the standard's version, enabled.
func FullProfile() map[string]protocol.Capability {
	p := map[string]protocol.Capability{}
	for _, c := range SDKCapabilities() {
		p[c] = protocol.Capability{Version: StandardVersion, Enabled: true}
	}
	return p
}

// CapabilityRequirement is one entry of requires.capabilities.
type CapabilityRequirement struct {
	Name  string
	Range string // "current", "*", or a SemVer range
}

// RequiredCapabilities lists requires.capabilities sorted by name; the list
// form (names only) means "current" for each (spec 000, Capability SDK).
func RequiredCapabilities(manifest map[string]any) []CapabilityRequirement {
	req, _ := manifest["requires"].(map[string]any)
	var out []CapabilityRequirement
	switch caps := req["capabilities"].(type) {
	case map[string]any:
		for name, r := range caps {
			s, _ := r.(string)
			if r != nil && s == "" {
				s = fmt.Sprint(r)
			}
			out = append(out, CapabilityRequirement{Name: name, Range: strings.TrimSpace(s)})
		}
	case []any:
		for _, n := range caps {
			if s, ok := n.(string); ok {
				out = append(out, CapabilityRequirement{Name: s, Range: "current"})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// anyVersion reports ranges every version satisfies.
func anyVersion(r string) bool { return r == "" || r == "current" || r == "*" || r == "latest" }

// capabilityProblem says why cap does not satisfy req ("" when it does),
// and whether the capability is merely unavailable (missing or disabled)
// rather than present in an incompatible version.
func capabilityProblem(req CapabilityRequirement, caps map[string]protocol.Capability) (problem string, unavailable bool) {
	c, ok := caps[req.Name]
	switch {
	case !ok:
		return fmt.Sprintf("capability %s is not offered by the host", req.Name), true
	case !c.Enabled:
		return fmt.Sprintf("capability %s is disabled in the host profile", req.Name), true
	case anyVersion(req.Range):
		return "", false
	}
	con, err := semver.NewConstraint(req.Range)
	if err != nil {
		return fmt.Sprintf("capability %s has an unreadable version range %q", req.Name, req.Range), false
	}
	v, err := semver.NewVersion(c.Version)
	if err != nil {
		return fmt.Sprintf("capability %s reports version %q, which is not SemVer; %q is required", req.Name, c.Version, req.Range), false
	}
	if !con.Check(v) {
		return fmt.Sprintf("capability %s is version %s; the app requires %s", req.Name, c.Version, req.Range), false
	}
	return "", false
}

// RequiredHostVersions lists requires.lime (host component -> version range,
// e.g. appRuntime: ">=0.3.0 <1.0.0"), sorted by name (spec 000, Capability
// SDK: "Apps must declare capability and version requirements before install").
func RequiredHostVersions(manifest map[string]any) []CapabilityRequirement {
	req, _ := manifest["requires"].(map[string]any)
	lime, _ := req["lime"].(map[string]any)
	out := make([]CapabilityRequirement, 0, len(lime))
	for name, r := range lime {
		s, _ := r.(string)
		if r != nil && s == "" {
			s = fmt.Sprint(r)
		}
		out = append(out, CapabilityRequirement{Name: name, Range: strings.TrimSpace(s)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// hostVersionProblem checks one requires.lime range against the host: the
// profile entry "lime.<name>" when the host reports one, else (for
// appRuntime) the standard version the host implements.
func hostVersionProblem(req CapabilityRequirement, caps map[string]protocol.Capability) string {
	if anyVersion(req.Range) {
		return ""
	}
	var version string
	c, ok := caps["lime."+req.Name]
	switch {
	case ok && c.Version == "":
		// Offered without a version: it meets no range (docs/decisions.md,
		// "Capabilities without a version").
		return fmt.Sprintf("the host states no version for its %s; the app requires %s", req.Name, req.Range)
	case ok:
		version = c.Version
	case req.Name == "appRuntime":
		version = StandardVersion
	default:
		return "" // a component the host does not report: nothing to compare
	}
	con, err := semver.NewConstraint(req.Range)
	if err != nil {
		return fmt.Sprintf("requires.lime.%s has an unreadable version range %q", req.Name, req.Range)
	}
	v, err := semver.NewVersion(version)
	if err != nil || !con.Check(v) {
		return fmt.Sprintf("the host's %s is version %s; the app requires %s", req.Name, version, req.Range)
	}
	return ""
}
