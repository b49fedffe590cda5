package mockhost

// lifecycleFaults are the faults of app/disable, app/enable, app/update and
// app/rollback (lifecycle.go).
func lifecycleFaults() []Fault {
	return []Fault{
		{Name: "disable-still-launches", Breaks: []string{"APP-DISABLE"},
			Description: "a disabled app's readiness says disabled, but its entries still launch"},
		{Name: "disable-drops-data", Breaks: []string{"APP-DISABLE"},
			Description: "disabling an app deletes what it stored"},
		{Name: "enable-stays-disabled", Breaks: []string{"APP-DISABLE"},
			Description: "app/enable is acknowledged, but the app stays disabled"},
		{Name: "disable-affects-all", Breaks: []string{"LIFECYCLE-ISOLATED"},
			Description: "disabling one app disables every installed app"},
		{Name: "update-skips-verification", Breaks: []string{"UPDATE-VERIFIED"},
			Description: "app/update installs the newer package without checking it is the release it names"},
		{Name: "update-drops-data", Breaks: []string{"UPDATE-KEEPS-DATA"},
			Description: "the updated app starts with empty storage"},
		{Name: "update-disables-others", Breaks: []string{"LIFECYCLE-ISOLATED"},
			Description: "updating one app leaves every other installed app disabled"},
		{Name: "rollback-drops-data", Breaks: []string{"ROLLBACK-KEEPS-DATA"},
			Description: "rollback reinstalls the older release from scratch, so what the app stored is gone"},
		{Name: "rollback-keeps-newer", Breaks: []string{"ROLLBACK-KEEPS-DATA"},
			Description: "app/rollback answers with the older release, but the newer one stays installed"},
		{Name: "update-drops-evidence", Breaks: []string{"UPDATE-KEEPS-EVIDENCE"},
			Description: "an update forgets the evidence the app recorded before it"},
		{Name: "evidence-stamped-current", Breaks: []string{"EVIDENCE-RELEASE-PROVENANCE"},
			Description: "every evidence record names the release installed now, not the one that made it"},
		{Name: "rollback-keeps-new-entries", Breaks: []string{"ROLLBACK-RETIRES-ENTRIES"},
			Description: "after a rollback the entries only the newer release had stay registered and launch"},
	}
}
