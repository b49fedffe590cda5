package mockhost

// installFaults are the faults of install and uninstall (apps.go, review.go):
// consent, what install registers and pins, the install review, what
// uninstall deletes.
func installFaults() []Fault {
	return []Fault{
		{Name: "install-skips-verification", Breaks: []string{"INSTALL-VERIFY-FIRST"},
			Description: "app/install installs without checking the expected hashes"},
		{Name: "install-without-consent", Breaks: []string{"INSTALL-CONSENT"},
			Description: "app/install ignores a missing consent"},
		{Name: "list-drops-hash", Breaks: []string{"INSTALL-PINNED"},
			Description: "app/list reports installed apps without the package hash they were installed from"},
		{Name: "uninstall-always-deletes", Breaks: []string{"UNINSTALL-KEEP-DATA", "UNINSTALL-APP-STORAGE", "UNINSTALL-APP-DATABASE", "UNINSTALL-APP-OUTPUTS", "UNINSTALL-SECRET-BINDINGS"},
			Description: "uninstall deletes app data even when asked to keep it"},
		{Name: "uninstall-never-deletes", Breaks: []string{"UNINSTALL-DELETE-DATA", "UNINSTALL-APP-STORAGE", "UNINSTALL-EXPORT", "UNINSTALL-APP-DATABASE", "UNINSTALL-APP-OUTPUTS", "UNINSTALL-SECRET-BINDINGS"},
			Description: "uninstall keeps app data even when asked to delete it"},
		{Name: "readiness-after-uninstall", Breaks: []string{"UNINSTALL-DELETE-DATA"},
			Description: "readiness of an uninstalled app is still answered from the package it was installed from"},
		{Name: "app-calls-after-uninstall", Breaks: []string{"UNINSTALL-DELETE-DATA", "UNINSTALL-KEEP-DATA"},
			Description: "app/secret, app/overlay, app/knowledge and app/file still take an uninstalled app, found in the folder it was installed from: a registration left behind"},
		{Name: "uninstall-by-prefix", Breaks: []string{"UNINSTALL-ISOLATED"},
			Description: "uninstall deletes the data of every app whose id starts with the one named, as a host deleting by prefix would"},
		// Each neighbour-keeping rule of uninstall is what removing every
		// app breaks: the other app's storage, secret bindings and outputs.
		{Name: "uninstall-removes-all", Breaks: []string{"UNINSTALL-ISOLATED", "UNINSTALL-APP-STORAGE", "UNINSTALL-SECRET-BINDINGS", "UNINSTALL-APP-OUTPUTS"},
			Description: "uninstalling one app removes every installed app"},
		{Name: "register-entries-only", Breaks: []string{"INSTALL-REGISTERS"},
			Description: "install registers the app's entries and nothing else"},
		{Name: "review-ignores-hash-pins", Breaks: []string{"INSTALL-REVIEW"},
			Description: "the install review checks the package against itself: a release pinning another packageHash shows the hashes step passed (app/install still refuses it)"},
		{Name: "review-all-passed", Breaks: []string{"INSTALL-REVIEW"},
			Description: "the install review shows every step passed, whatever verification found"},
	}
}
