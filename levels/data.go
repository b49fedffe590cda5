package levels

// dataRequirements are the host duties of the data boundary and the app
// lifecycle after install: app storage namespaces, disable and enable,
// update and rollback, and what uninstall does to what an app stored
// (Desktop P4, the storage service of Runtime, the upgrades of Product).
func dataRequirements() []Requirement {
	p4 := []string{"desktop-p4"}
	cleanup := spec(SpecDesktop, "Required desktop host behavior", "Support disable, uninstall keep data, uninstall delete data, and export then delete.")
	return []Requirement{
		{ID: "STORAGE-NAMESPACED", Strength: Must, Levels: []string{"runtime", "desktop-p4"},
			Title:  "An app reads, lists, overwrites and exports only its own lime.storage keys: the same key in two apps holds two values, neither app's list names the other's keys, and an export of one holds nothing the other stored",
			Clause: spec(SpecMain, "Storage and data boundary", "Apps can access only their namespace unless the user explicitly grants cross-app or workspace data.")},
		{ID: "STORAGE-SCOPED", Strength: Must, Levels: []string{"runtime", "desktop-p4"},
			Title:  "What an app stores in one workspace and tenant, the same app run in another workspace, or in another tenant, neither reads nor lists, and a write there leaves it as it was",
			Clause: spec(SpecDesktop, "Required desktop host behavior", "Storage / Artifacts / Evidence: Namespace app data, outputs, logs, and evidence by app, workspace, and tenant.")},
		{ID: "APP-DISABLE", Reading: "Disable and enable", Strength: Must, Levels: p4,
			Title: "A disabled app keeps its data, its readiness is disabled and none of its entries launches; enabled again, it launches and finds the same data",
			Clause: Clause{Source: SpecText, File: SpecDesktop, Section: "Required desktop host behavior; Readiness state rules",
				Quote: "Support disable, uninstall keep data, uninstall delete data, and export then delete. ... disabled: An admin or policy hides the entry."}},
		{ID: "LIFECYCLE-ISOLATED", Strength: MustNot, Levels: p4,
			Title:  "Disabling or updating one app leaves every other app as app/list showed it, ready, launchable and with its data",
			Clause: spec(SpecDesktop, "Conformance checklist", "disable / uninstall / update do not break other apps.")},
		{ID: "UPDATE-VERIFIED", Reading: "Update and rollback", Refusal: []RefusalKind{RefusesPackage}, Strength: Must, Levels: p4,
			Title:  "An update is verified as an install is: a newer release whose package is not the one its release names is refused for that, and the installed release stays with its data",
			Clause: spec(SpecRelease, "Release and distribution", "A registry can distribute packages and authorize tenants, but the host still performs local verification, readiness, policy checks, and runtime execution.")},
		{ID: "UPDATE-KEEPS-DATA", Reading: "Update and rollback", Strength: MustNot, Levels: []string{"product", "desktop-p4"},
			Title:  "An update to a newer release keeps what the app stored",
			Clause: spec(SpecRelease, "What must not be overwritten", "A release upgrade must not overwrite: ... app storage records")},
		{ID: "ROLLBACK-KEEPS-DATA", Reading: "Update and rollback", Strength: Must, Levels: []string{"product", "desktop-p4"},
			Title:  "Rollback brings back the release the app had before its update, and keeps what the app stored before and after the update",
			Clause: spec(SpecRelease, "Rollback", "Rollback is not just downloading the older package. The host must decide what to do with data written by the newer version. Minimum rollback plan: ... keep user data by default")},
		{ID: "ROLLBACK-RETIRES-ENTRIES", Reading: "Update and rollback", Strength: Should, Levels: []string{"product", "desktop-p4"},
			Title:  "After a rollback, an entry only the newer release had no longer launches, and the older release's entries do",
			Clause: spec(SpecRelease, "Rollback", "Minimum rollback plan: - disable new entries if incompatible")},
		{ID: "UPDATE-KEEPS-EVIDENCE", Strength: MustNot, Levels: []string{"product", "desktop-p4"},
			Title: "An update keeps the evidence the app recorded before it, and a rollback keeps the evidence of both releases",
			Clause: Clause{Source: SpecText, File: SpecRelease, Section: "What must not be overwritten; Rollback",
				Quote: "A release upgrade must not overwrite: ... evidence history ... Minimum rollback plan: ... preserve evidence records"}},
		{ID: "EVIDENCE-RELEASE-PROVENANCE", Reading: "Release provenance of records", Strength: Should, Levels: []string{"product", "desktop-p4"},
			Title:  "Each evidence record names the release of the app that made it: records from before an update keep the older release, newer ones name the newer",
			Clause: spec(SpecRelease, "Rollback", "Minimum rollback plan: ... preserve evidence records - record which release created each artifact")},
		{ID: "UNINSTALL-EXPORT", Reading: "Export then delete", Strength: Must, Levels: p4,
			Title:  "Uninstall with export then delete writes an export holding everything the app stored before deleting it, and a reinstall finds none of it",
			Clause: cleanup},
		{ID: "UNINSTALL-CLEANUP-RECORD", Reading: "Cleanup records", Strength: Should, Levels: p4,
			Title:  "Every uninstall leaves a cleanup record naming the app and the mode it was removed in: keep data, delete data, or export then delete",
			Clause: spec(SpecRuntime, "Host responsibilities", "Install, uninstall, upgrade, disable, and export apps. ... Record provenance, evidence, telemetry, eval results, and cleanup records.")},
		{ID: "UPDATE-KEEPS-ARTIFACTS", Strength: MustNot, Levels: []string{"product", "desktop-p4"},
			Title:  "The artifacts an app's runs made before an update are still recorded after it, each naming the release that made it; those made after it name the newer release",
			Clause: spec(SpecRelease, "Rollback", "Minimum rollback plan: ... preserve evidence records - record which release created each artifact")},
		{ID: "UNINSTALL-APP-OUTPUTS", Strength: Must, Levels: p4,
			Title:  "The artifacts and workflow runs of an app are there again after uninstall keeping data and a reinstall, and none of them after uninstall deleting data and a reinstall",
			Clause: spec(SpecDesktop, "Required desktop host behavior", "Storage / Artifacts / Evidence: Namespace app data, outputs, logs, and evidence by app, workspace, and tenant. ... Cleanup: Support disable, uninstall keep data, uninstall delete data, and export then delete.")},
		{ID: "UNINSTALL-APP-STORAGE", Strength: Must, Levels: p4,
			Title:  "What an app stored through lime.storage is there again after uninstall keeping data and a reinstall, and gone after uninstall deleting data and a reinstall",
			Clause: cleanup},
	}
}
