package levels

// migrationRequirements are the host duties around an app's own storage
// migrations: readiness waits for them, they run only after the user's
// approval, and none of them reaches outside the app's namespace into host
// core state (spec 000 Storage and data boundary and Readiness; 001 Host
// responsibilities; 002 Conformance checklist).
func migrationRequirements() []Requirement {
	return []Requirement{
		{ID: "READY-MIGRATIONS", BugFamilies: []BugFamily{ChangeBetweenReads, EveryTransition, EveryEntryPoint}, Reading: "Storage migrations", Refusal: []RefusalKind{NotReadyInstalled}, Strength: Must, Levels: []string{"executable", "desktop-p1"},
			Title: "An installed app whose storage migrations wait for the user's approval (after install or after an update that brings a new one) is not ready and readiness names the migration; approved and applied, the app is ready; approved and failed, it is not",
			Clause: Clause{Source: SpecText, File: SpecMain, Section: "Runtime contract; Readiness",
				Quote: "Compatible hosts must: ... Run readiness before execution: capability negotiation, permissions, Knowledge bindings, secrets, storage migrations, tool availability, policy. ... storage migrations are complete or waiting for user approval"}},
		{ID: "MIGRATIONS-AFTER-CONSENT", BugFamilies: []BugFamily{EveryEntryPoint, WhoAnswers}, Reading: "Storage migrations", Strength: Must, Levels: []string{"runtime", "desktop-p4"},
			Title:  "An app's storage migrations run only once the user approved them: not at an install that did not approve them, not on an app/migrate without consent (refused -32003)",
			Clause: spec(SpecRuntime, "Host responsibilities", "Create app storage namespace and apply migrations only after review.")},
		{ID: "MIGRATION-IRREVERSIBLE-RISK", BugFamilies: []BugFamily{EveryMember}, Reading: "Storage migrations", Strength: Should, Levels: []string{"product", "desktop-p4"},
			Title:  "Before an irreversible migration an update brings is approved, the host shows the risk its release declares (in the install review or in readiness while it waits)",
			Clause: spec(SpecRelease, "Migration notes", "reversible: false risk: requires user confirmation before deleting old indexes Hosts should dry-run migrations when possible and show irreversible risks.")},
		{ID: "UNINSTALL-APP-DATABASE", BugFamilies: []BugFamily{EveryMember, EveryTransition}, Reading: "Storage migrations", Strength: Must, Levels: []string{"runtime", "desktop-p4"},
			Title:  "What an app's migrations made in its namespace is there again after uninstall keeping data and a reinstall, and gone after uninstall deleting data and a reinstall, whose migrations wait to run again",
			Clause: spec(SpecDesktop, "Required desktop host behavior", "Support disable, uninstall keep data, uninstall delete data, and export then delete.")},
		{ID: "MIGRATION-NO-HOST-WRITE", BugFamilies: []BugFamily{EveryMember}, Reading: "Storage migrations", Strength: MustNot, Levels: []string{"runtime", "desktop-p4"},
			Title: "An app migration that reaches outside the app's database (ATTACH, PRAGMA, VACUUM INTO, load_extension) is refused (-32010 naming the file) before any of it runs and the host's core state is unchanged; one naming host tables runs, if at all, inside the app's own namespace, and the host keeps working",
			Clause: Clause{Source: SpecText, File: SpecMain, Section: "Storage and data boundary; 002 Conformance checklist",
				Quote: "Host core state must not be writable by app-owned migrations. ... [ ] Host core database state is not writable by app-owned migrations."}},
	}
}
