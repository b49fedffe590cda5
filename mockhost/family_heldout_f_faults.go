package mockhost

// heldOutFFaults are the survivors of the held-out batch 2026-11-27c
// (mockhost/heldout/2026-11-27c), turned into faults once the specs of
// their families were fixed.
func heldOutFFaults() []Fault {
	return []Fault{
		{Name: "handshake-appid-unchecked", Breaks: []string{"BRIDGE-APPID"},
			Description: "app:ready and host:getSnapshot are answered with a snapshot whatever appId their envelope names (held-out f05)"},
		{Name: "navigate-backslash-route", Breaks: []string{"BRIDGE-NAVIGATE"},
			Description: "host:navigate does not look at a route's backslashes: \"/\\evil.example/x\", which a browser reads as //evil.example/x, is allowed (held-out f06)"},
		{Name: "policy-capability-lowercased", Breaks: []string{"BRIDGE-FAIL-CLOSED"},
			Description: "the policy gate lowercases the called capability before reading deniedCapabilities: lime.cloudSession, denied by name, runs (held-out f07)"},
		{Name: "approval-last-member-only", Breaks: []string{"BRIDGE-FAIL-CLOSED"},
			Description: "only the last capability policy.approvalRequired lists needs the user's approval; the others run (held-out f08)"},
		{Name: "reset-keeps-knowledge-bindings", Breaks: []string{"PROTO-RESET"},
			Description: "host/reset keeps the knowledge packs bound with app/knowledge: the app installed again finds its template bound (held-out f01)"},
		{Name: "migrate-answers-every-file", Breaks: []string{"MIGRATIONS-AFTER-CONSENT"},
			Description: "app/migrate answers applied with every migration file of the package, not the ones it applied: a call with nothing pending lists them all (held-out f03)"},
		{Name: "update-answers-install-row", Breaks: []string{"APP-DISABLE"},
			Description: "app/update answers the app row of the install it runs inside, before the app's state is restored: a disabled app is answered installed (held-out f12)"},
		{Name: "call-gate-app-readiness", Breaks: []string{"BRIDGE-FAIL-CLOSED"},
			Description: "a bridge call's readiness gate asks the app's readiness, not the entry's: calls from an entry tenant policy denied after it opened still run (held-out f09)"},
		{Name: "rollback-keeps-newer-display-names", Breaks: []string{"ROLLBACK-TO-TARGET"},
			Description: "app/rollback brings the older release back under the localized names of the release it left: app/list shows 1.0.0 named as 1.1.0 names itself (held-out f13)"},
		{Name: "manifest-hash-unchecked-with-package-hash", Breaks: []string{"VERIFY-MANIFEST-HASH"},
			Description: "with a release pinning packageHash, verification drops a manifestHash mismatch as redundant: a wrong manifestHash verifies (held-out f16)"},
		{Name: "secret-readiness-slot-refused", Breaks: []string{"PROTO-SECRET-KEY-EXACT"},
			Description: "app/secret takes only the keys of the manifest's secrets list: a secret the app's readiness checks name is refused with -32602, so the setup readiness asks for cannot be done (held-out f14)"},
		{Name: "secret-status-cached-per-surface", Breaks: []string{"PROTO-SECRET-KEY-EXACT"},
			Description: "lime.secrets status keeps its first answer for the life of the surface: a slot bound after the first ask still reads not configured (held-out f15)"},
		{Name: "projection-follows-locale", Breaks: []string{"PROJ-DETERMINISTIC"},
			Description: "package/project writes the displayNameI18n name of host/configure's locale into app.displayName: the projection changes with the host's locale (held-out f17)"},
		{Name: "publisher-id-matches-name", Breaks: []string{"VERIFY-PUBLISHER"},
			Description: "the publisher step takes a publisherId equal to the release publisher's name for its id: a package naming itself by the publisher's claimable name verifies (held-out f20)"},
	}
}
