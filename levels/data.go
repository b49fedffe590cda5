package levels

// dataRequirements are the host duties of the data boundary and the app
// lifecycle after install: app storage namespaces, disable and enable, and
// what uninstall does to what an app stored (Desktop P4, and the storage
// service of Runtime).
func dataRequirements() []Requirement {
	p4 := []string{"desktop-p4"}
	cleanup := spec(SpecDesktop, "Required desktop host behavior", "Support disable, uninstall keep data, uninstall delete data, and export then delete.")
	return []Requirement{
		{ID: "STORAGE-NAMESPACED", Strength: Must, Levels: []string{"runtime", "desktop-p4"},
			Title:  "An app reads, lists and overwrites only its own lime.storage keys: the same key in two apps holds two values, and neither app's list names the other's keys",
			Clause: spec(SpecMain, "Storage and data boundary", "Apps can access only their namespace unless the user explicitly grants cross-app or workspace data.")},
		{ID: "APP-DISABLE", Reading: "Disable and enable", Strength: Must, Levels: p4,
			Title: "A disabled app keeps its data, its readiness is disabled and none of its entries launches; enabled again, it launches and finds the same data",
			Clause: Clause{Source: SpecText, File: SpecDesktop, Section: "Required desktop host behavior; Readiness state rules",
				Quote: "Support disable, uninstall keep data, uninstall delete data, and export then delete. ... disabled: An admin or policy hides the entry."}},
		{ID: "DISABLE-ISOLATED", Strength: MustNot, Levels: p4,
			Title:  "Disabling one app leaves every other app ready, launchable and with its data",
			Clause: spec(SpecDesktop, "Conformance checklist", "disable / uninstall / update do not break other apps.")},
		{ID: "UNINSTALL-APP-STORAGE", Strength: Must, Levels: p4,
			Title:  "What an app stored through lime.storage is there again after uninstall keeping data and a reinstall, and gone after uninstall deleting data and a reinstall",
			Clause: cleanup},
	}
}
