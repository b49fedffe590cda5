package mockhost

// dataAuditFaults are the faults of the family audit of the data area
// (docs/decisions.md, "Families every spec is checked against"): each breaks
// the family a spec of the area covers for a requirement, beyond the one
// representative case an earlier fault broke.
func dataAuditFaults() []Fault {
	return []Fault{
		{Name: "disable-by-prefix", Breaks: []string{"LIFECYCLE-ISOLATED"},
			Description: "app/disable of an app disables every app whose id begins with its id too (bridge-probe-b with bridge-probe)"},
		{Name: "secret-bindings-dropped-by-prefix", Breaks: []string{"UNINSTALL-SECRET-BINDINGS"},
			Description: "uninstall deleting data forgets the secrets bound to every app whose id begins with the uninstalled one's"},
		{Name: "outputs-dropped-by-prefix", Breaks: []string{"UNINSTALL-APP-OUTPUTS"},
			Description: "uninstall deleting data deletes the artifacts and workflow runs of every app whose id begins with the uninstalled one's too"},
		{Name: "storage-list-by-prefix", Breaks: []string{"STORAGE-SCOPED"},
			Description: "lime.storage list scans every bucket of the app whose name begins with the current one's: run in a workspace whose id another workspace's begins with, it names that workspace's keys"},
		{Name: "export-by-prefix", Breaks: []string{"STORAGE-NAMESPACED"},
			Description: "export then delete of an app exports what every app whose id begins with its id stored too"},
		{Name: "cloud-session-carries-other-token", Breaks: []string{"CLOUD-SESSION-NO-TOKEN"},
			Description: "lime.cloudSession getSnapshot leaves out the token of the session named cloud but carries another session's token"},
		{Name: "branding-without-shell-copy", Breaks: []string{"BRANDING-HOST-PROJECTED"},
			Description: "lime.branding get projects the OEM name and tokens but not the OEM shell copy"},
	}
}
