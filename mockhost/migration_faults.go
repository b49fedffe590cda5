package mockhost

// migrationFaults are the faults of storage migrations (migrations.go).
func migrationFaults() []Fault {
	return []Fault{
		{Name: "readiness-ignores-migrations", Breaks: []string{"READY-MIGRATIONS"},
			Description: "readiness never looks at storage migrations: an app whose migrations wait for approval is ready"},
		{Name: "migrations-without-consent", Breaks: []string{"MIGRATIONS-AFTER-CONSENT"},
			Description: "app/install runs the package's storage migrations although the user did not approve them"},
		{Name: "migrate-ignores-consent", Breaks: []string{"MIGRATIONS-AFTER-CONSENT"},
			Description: "app/migrate runs the migrations without the user's approval"},
		{Name: "irreversible-risk-hidden", Breaks: []string{"MIGRATION-IRREVERSIBLE-RISK"},
			Description: "an irreversible migration waits for approval like any other: its declared risk is never shown"},
		{Name: "uninstall-keep-drops-database", Breaks: []string{"UNINSTALL-APP-DATABASE"},
			Description: "uninstall keeping data keeps the data folder but deletes the app's database in it"},
		{Name: "uninstall-delete-keeps-ledger", Breaks: []string{"UNINSTALL-APP-DATABASE"},
			Description: "uninstall deleting data deletes the app's database but not the host's ledger of its applied migrations, so a reinstall never runs them again"},
		{Name: "migrate-first-pending-only", Breaks: []string{"READY-MIGRATIONS"},
			Description: "an approval applies only the first of the app's pending storage migrations; the others stay pending"},
		{Name: "migrations-unvetted", Breaks: []string{"MIGRATION-NO-HOST-WRITE"},
			Description: "migrations run as written: ATTACH, VACUUM INTO, PRAGMA and load_extension are not refused"},
		{Name: "migrations-in-host-db", Breaks: []string{"MIGRATION-NO-HOST-WRITE"},
			Description: "app migrations run in the host's own database, so a migration naming a host table writes host core state"},
		{Name: "migration-partial", Breaks: []string{"MIGRATION-NO-HOST-WRITE"},
			Description: "a migration's statements are checked one at a time as they run, so a refused migration leaves what ran before the forbidden statement"},
	}
}
