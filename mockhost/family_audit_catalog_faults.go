package mockhost

// catalogAuditFaults are the faults of the family audit of the catalog area
// (docs/decisions.md, "Families every spec is checked against"): each breaks
// the family a spec of the area covers for a requirement, beyond the one
// representative case an earlier fault broke.
func catalogAuditFaults() []Fault {
	return []Fault{
		{Name: "layered-new-files-unread", Breaks: []string{"CAT-LAYERED-LOAD"},
			Description: "app.requirements.yaml and app.boundary.yaml, layered files the standard added later, are never loaded; app.entries.yaml and app.permissions.yaml are (every member of the layered files)"},
		{Name: "manifest-hash-trims-blank-lines", Breaks: []string{"VERIFY-MANIFEST-HASH"},
			Description: "manifestHash is taken over APP.md as text with its trailing blank lines trimmed, not over its raw bytes: an APP.md given blank lines keeps its pinned hash (raw vs cleaned)"},
		{Name: "publisher-id-prefix-match", Breaks: []string{"VERIFY-PUBLISHER"},
			Description: "a publisherId the package names is taken for the release's when it starts with it: agentapp-conformance-labs for agentapp-conformance (confusable identities)"},
		{Name: "verified-domain-suffix-match", Breaks: []string{"VERIFY-PUBLISHER"},
			Description: "a verifiedDomain the package names is taken for the release's when it ends with it, with no dot boundary: evilconformance.example.org for conformance.example.org (confusable identities)"},
	}
}
