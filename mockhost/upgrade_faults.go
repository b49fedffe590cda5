package mockhost

// upgradeFaults are the faults of what an upgrade keeps beside app storage
// and where a rollback goes (userstate.go, lifecycle.go): spec 003, What
// must not be overwritten, Release object (rollbackTarget) and Rollback.
func upgradeFaults() []Fault {
	return []Fault{
		{Name: "update-resets-knowledge-bindings", Breaks: []string{"UPDATE-KEEPS-KNOWLEDGE-BINDINGS"},
			Description: "an update starts the newer release's knowledge templates unbound: the packs the user bound are gone"},
		{Name: "update-overwrites-workspace-files", Breaks: []string{"UPDATE-KEEPS-WORKSPACE-FILES"},
			Description: "an update copies the newer release's sample workspace over the app's workspace, replacing the user's files of the same names"},
		{Name: "update-replaces-workspace", Breaks: []string{"UPDATE-KEEPS-WORKSPACE-FILES"},
			Description: "an update replaces the app's workspace with the newer release's sample workspace: every file the user wrote is gone or overwritten"},
		{Name: "rollback-to-first-release", Breaks: []string{"ROLLBACK-TO-TARGET"},
			Description: "a release that names a rollbackTarget sends app/rollback to the first release the app had on this host, whichever it names"},
		{Name: "rollback-ignores-target", Breaks: []string{"ROLLBACK-TO-TARGET"},
			Description: "app/rollback goes to the release the last update replaced, whatever rollbackTarget the release names"},
		{Name: "rollback-runs-down-migrations", Breaks: []string{"ROLLBACK-NO-DOWN-MIGRATIONS"},
			Description: "app/rollback runs the downgrade migrations the release it leaves ships, unasked"},
		{Name: "rollback-export-after-down", Breaks: []string{"ROLLBACK-EXPORT-BEFORE-DELETE"},
			Description: "app/rollback with downMigrations and exportTo writes the export after the downgrade ran: the rows of the table it dropped are missing"},
		{Name: "rollback-export-without-down-ignored", Breaks: []string{"ROLLBACK-EXPORT-BEFORE-DELETE"},
			Description: "app/rollback with exportTo and no downMigrations is not refused: the rollback goes ahead as if exportTo were not there"},
		{Name: "rollback-export-ignored", Breaks: []string{"ROLLBACK-EXPORT-BEFORE-DELETE"},
			Description: "app/rollback with downMigrations ignores exportTo: the downgrade runs and nothing is exported"},
	}
}
