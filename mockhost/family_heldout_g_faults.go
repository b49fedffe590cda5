package mockhost

// heldOutGFaults are the survivors of the held-out batch 2026-11-28
// (mockhost/heldout/2026-11-28), turned into faults once the specs of their
// families were fixed.
func heldOutGFaults() []Fault {
	return []Fault{
		{Name: "uninstall-delete-keeps-knowledge", Breaks: []string{"UNINSTALL-USER-STATE"},
			Description: "uninstall deleting data keeps the knowledge packs bound to the app, as the user's library: a reinstall finds its template bound (held-out g01)"},
		{Name: "uninstall-keep-drops-knowledge", Breaks: []string{"UNINSTALL-USER-STATE"},
			Description: "uninstall keeping data forgets the knowledge packs bound to the app: a reinstall needs them bound again"},
		{Name: "uninstall-delete-keeps-workspace", Breaks: []string{"UNINSTALL-USER-STATE"},
			Description: "uninstall deleting data keeps the app's workspace files in a documents folder of the host's, and a reinstall finds them"},
		{Name: "uninstall-keep-drops-workspace", Breaks: []string{"UNINSTALL-USER-STATE"},
			Description: "uninstall keeping data empties the app's workspace: a reinstall finds none of the user's files"},
		{Name: "storage-scope-unescaped", Breaks: []string{"STORAGE-SCOPED"},
			Description: "lime.storage's bucket joins the tenant and workspace ids as they are: tenant T/x with workspace W reads what tenant T stored in workspace x/W (held-out g03)"},
		{Name: "revocation-failure-cached", Breaks: []string{"VERIFY-REVOCATION-FAIL-CLOSED"},
			Description: "a failed revocation lookup is remembered for cacheSeconds as not revoked: the next verification while the service is still down passes (held-out g05)"},
		{Name: "app-updates-from-catalogue", Breaks: []string{"APP-UPDATES-CHECK"},
			Description: "lime.appUpdates check also offers the newest release of the registry's public catalogue: a release the tenant never enabled is named the latest (held-out g08)"},
		{Name: "workflow-idempotency-across-workflows", Breaks: []string{"WORKFLOW-IDEMPOTENT-START"},
			Description: "an idempotency key is matched across the app's workflows: a start of flow_b reusing flow_a's key is answered with flow_a's run (held-out g09)"},
		{Name: "rollback-target-carried-over", Breaks: []string{"ROLLBACK-TO-TARGET"},
			Description: "a release that names no rollbackTarget keeps the one an earlier release named: 1.0.0, 1.1.0 naming 1.0.0, 1.2.0 naming none, and app/rollback goes to 1.0.0 (held-out g12)"},
		{Name: "requestid-clipped", Breaks: []string{"BRIDGE-REQUESTID"},
			Description: "host messages carry the requestId cut to 64 bytes: the answer to a request with a 100-byte id matches no request of the app (held-out g11)"},
		{Name: "health-skipped-for-entry", Breaks: []string{"READY-HEALTH-STARTUP"},
			Description: "a failing startup health check blocks the app's readiness but not an entry's: app/readiness of the entry, app/launch and the call gate let it run (held-out g13)"},
		{Name: "provenance-from-release", Breaks: []string{"PROJ-PROVENANCE"},
			Description: "package/project given a release takes its packageHash for the provenance: a folder hashing to another is projected as the one the release vouches for (held-out g14)"},
		{Name: "redaction-first-copy-only", Breaks: []string{"AGENT-NO-LEAK"},
			Description: "an App Server error message quoting a credential twice reaches the app with its first copy redacted and the second in it (held-out g15)"},
		{Name: "redaction-stale-after-configure", Breaks: []string{"AGENT-NO-LEAK"},
			Description: "the credentials kept out of the App Server's answers are those the host first held: a provider key a later host/configure gives reaches the app in an error message (held-out g16)"},
		{Name: "update-skips-tenant-policy", Breaks: []string{"UPDATE-VERIFIED"},
			Description: "tenant policy gates new apps only: app/update installs a newer release of an app the policy denies since it came in (held-out g17)"},
		{Name: "snapshot-capabilities-cached", Breaks: []string{"BRIDGE-CAPS-DECLARED"},
			Description: "the snapshot's capability summary is kept from the surface's first snapshot: a capability host/configure switches off later still shows available (held-out g20)"},
	}
}
