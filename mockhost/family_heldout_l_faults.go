package mockhost

// heldOutLFaults are the survivors of the held-out batch 2026-11-29d
// (mockhost/heldout/2026-11-29d), and its one weak kill, turned into faults
// once the specs of their families were fixed.
func heldOutLFaults() []Fault {
	return []Fault{
		{Name: "secret-binding-by-slot-name", Breaks: []string{"UNINSTALL-SECRET-BINDINGS"},
			Description: "a secret bound to one app's slot counts for every app declaring a slot of that name: the second app of a pair is ready with nothing bound to it (held-out l01)"},
		{Name: "disable-drops-secret-bindings", Breaks: []string{"APP-DISABLE"},
			Description: "app/disable forgets the secrets the user bound to the app: enabled again, it needs setup (held-out l02)"},
		{Name: "call-gate-reads-envelope-entry", Breaks: []string{"BRIDGE-FAIL-CLOSED"},
			Description: "a bridge call's gates judge the entry its envelope names, when the app has it, not the entry the surface runs: the frame of an entry policy denies calls by naming a ready one (held-out l08)"},
		{Name: "revocation-skipped-for-installed-app", Breaks: []string{"UPDATE-VERIFIED"},
			Description: "revocation.checkUrl is not asked about a release of an app already installed: app/update installs a revoked newer release (held-out l10)"},
		{Name: "reinstall-keeps-release-history", Breaks: []string{"ROLLBACK-KEEPS-DATA"},
			Description: "an uninstall keeping data keeps the app's release history, and the reinstall takes it back: app/rollback of the reinstalled release answers ok (held-out l13)"},
		{Name: "evidence-listed-by-app-prefix", Breaks: []string{"EVIDENCE-LOCAL-RECORD"},
			Description: "host/observe of an app lists the evidence of every app whose id begins with its own: tiny-app's evidence holds what tiny-app-pro recorded (held-out l19)"},
		{Name: "export-drops-non-text-values", Breaks: []string{"UNINSTALL-EXPORT"},
			Description: "export then delete writes only the text values the app stored: a number, an object or a list is left out and deleted (held-out l14)"},
	}
}
