package mockhost

// surfaceAuditFaults are the faults of the family audit of the surface area
// (docs/decisions.md, "Families every spec is checked against"): each breaks
// the family a spec of the area covers for a requirement, beyond the one
// representative case an earlier fault broke.
func surfaceAuditFaults() []Fault {
	return []Fault{
		{Name: "launch-checks-capabilities-only", Breaks: []string{"LAUNCH-GATED"},
			Description: "the launch gate reads only the entry's capability checks: an entry tenant policy denies mounts (every member: each cause of a blocked entry)"},
		{Name: "center-hides-policy-blockers", Breaks: []string{"CENTER-BLOCKERS"},
			Description: "the app center explains only blockers a setup action can fix: an entry tenant policy denies shows its status without the reason (every member: each blocker reason)"},
		{Name: "requestid-answer-by-prefix", Breaks: []string{"BRIDGE-REQUESTID"},
			Description: "an answer is matched to the earlier request whose requestId its own begins with, taken for a retry suffix: the answer to ok-10 carries ok-1 (confusable identities)"},
		{Name: "open-external-scheme-blocklist", Breaks: []string{"BRIDGE-OPEN-EXTERNAL"},
			Description: "host:openExternal checks schemes against a list of bad ones (javascript:, file:, data:, as spelled), not allowed ones: JavaScript:, vbscript: and ftp: are opened (representation boundaries)"},
		{Name: "download-checks-origin-only", Breaks: []string{"BRIDGE-DOWNLOAD"},
			Description: "host:download takes any URL at the runtime origin, outside the app's own files too: another app's folder, the origin's root (confusable identities)"},
		{Name: "refused-url-still-carried-out", Breaks: []string{"BRIDGE-OPEN-EXTERNAL", "BRIDGE-DOWNLOAD"},
			Description: "a URL host:openExternal or host:download refuses is opened or downloaded all the same (host/observe records it allowed); only the answer is host:error (every member, judged by its effect)"},
		{Name: "toast-error-level-html", Breaks: []string{"BRIDGE-TOAST-TEXT"},
			Description: "an error-level host:toast is shown as markup (innerHTML); the other levels stay text (every member: each toast level)"},
	}
}
