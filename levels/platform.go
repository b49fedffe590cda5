package levels

// platformRequirements are the host duties of Desktop P3: the host, not
// each app, provides model settings, the cloud session, OEM branding,
// billing and app updates, and projects to apps only what the shared
// projection allows (spec 002, Shared platform capabilities; spec 001,
// Shared projection; spec 000, Shared host model), and it keeps the app's
// evidence locally with its provenance (the App Server's evidence/export
// is AGENT-PROJECTIONS, at Desktop P5).
func platformRequirements() []Requirement {
	p3 := []string{"desktop-p3"}
	return []Requirement{
		{ID: "MODEL-SETTINGS-NO-KEY", BugFamilies: []BugFamily{EveryMember}, Reading: "Platform capability payloads", Strength: MustNot, Levels: p3,
			Title: "lime.modelSettings get answers the effective model profile the host holds, and never its provider key or private routing table",
			Clause: Clause{Source: SpecText, File: SpecRuntime, Section: "Shared projection; 002 Shared platform capabilities",
				Quote: "Model settings: Effective model profile, limits, setup action. ... Provider API keys or host-private routing tables."}},
		{ID: "MODEL-SETTINGS-HOST-OWNED", BugFamilies: []BugFamily{ChangeBetweenReads}, Reading: "Apps do not persist model settings", Strength: MustNot, Levels: p3,
			Title:  "An app cannot change the host's global model settings: lime.modelSettings set is refused with host:error, and the effective profile stays the host's",
			Clause: spec(SpecDesktop, "Shared platform capabilities", "Apps read effective settings or request setup; they do not persist global model settings.")},
		{ID: "CLOUD-SESSION-NO-TOKEN", BugFamilies: []BugFamily{EveryMember, EveryEntryPoint}, Reading: "Platform capability payloads", Strength: MustNot, Levels: p3,
			Title:  "lime.cloudSession getSnapshot is answered (the session's presence is the app's to see) and never with a bearer or session token the host holds; nor is requestLogin {force: true}",
			Clause: spec(SpecDesktop, "Shared platform capabilities; Conformance checklist", "Snapshots do not include bearer tokens; tokens are fetched just in time only. ... lime.cloudSession snapshots never leak tokens.")},
		{ID: "CLOUD-SESSION-JIT-TOKEN", BugFamilies: []BugFamily{ConfusableIdentity, ChangeBetweenReads}, Reading: "The just-in-time token", Strength: Should, Levels: p3,
			Title: "On the app's explicit request lime.cloudSession hands it the current token of the host's cloud session (never another session's, never the one before the session changed), and answers requestLogin {force: true} with a session the next request draws a token from",
			Clause: spec(SpecMain, "Capability SDK", "lime.cloudSession snapshots must never include bearer tokens. Apps that need to call a control plane may explicitly request a just-in-time token. "+
				"If that token is rejected, apps may call lime.cloudSession.requestLogin with { \"force\": true } and retry once; hosts must only refresh the generic session")},
		{ID: "CLOUD-SESSION-TOKEN-NOT-KEPT", BugFamilies: []BugFamily{EveryMember, ChangeBetweenReads}, Reading: "The just-in-time token", Strength: MustNot, Levels: p3,
			Title: "A just-in-time token the host handed the app is kept nowhere the app reads later: not in getSnapshot after the fetch, not in the app's config, evidence or any state host/observe shows of the app",
			Clause: spec(SpecRelease, "Distribution flow", "An embedded app may use lime.cloudSession to fetch the current host session token just in time, then call the registry or control plane itself. "+
				"The host only provides generic login, session, and authorization support; it must not proxy the publish flow or persist the token into app config.")},
		{ID: "BRANDING-HOST-PROJECTED", BugFamilies: []BugFamily{EveryMember}, Reading: "Platform capability payloads", Strength: Must, Levels: p3,
			Title:  "lime.branding get answers the OEM brand and tokens the host holds, not a brand the app's own package names",
			Clause: spec(SpecDesktop, "Shared platform capabilities", "The host projects branding, theme, and shell copy; apps consume tokens.")},
		{ID: "BILLING-NO-LEDGER", BugFamilies: []BugFamily{EveryMember}, Reading: "Platform capability payloads", Strength: MustNot, Levels: p3,
			Title: "lime.billing getStatus answers the plan, the quota status and the blocked reason, and never the raw ledger or a payment credential the host holds",
			Clause: Clause{Source: SpecText, File: SpecRuntime, Section: "Shared projection; 002 Shared platform capabilities",
				Quote: "Billing and entitlement: Plan summary, quota status, blocked reason. ... Raw billing ledger or payment credentials. ... The host projects tenant billing state; apps do not own the ledger."}},
		{ID: "BILLING-BLOCKS", BugFamilies: []BugFamily{ChangeBetweenReads, EveryEntryPoint}, Refusal: []RefusalKind{NotReadyInstalled}, Reading: "Billing in readiness", Strength: Must, Levels: p3,
			Title:  "While the tenant's quota is exhausted, an entry that needs lime.billing is not ready and its readiness names billing, asked for the entry and in the whole app's list of entries, and app/launch of it is refused; it is ready again once the quota is restored",
			Clause: spec(SpecDesktop, "Required desktop host behavior; Readiness state rules", "Check host version, capabilities, session, model settings, secrets, billing, and policy. ... The host must explain which capability, policy, secret, billing state, model setting, or host version caused the failure.")},
		{ID: "EVIDENCE-LOCAL-RECORD", BugFamilies: []BugFamily{EveryMember, WhoAnswers, ConfusableIdentity}, Reading: "Local evidence", Strength: Must, Levels: p3,
			Title:  "An app's lime.evidence record is answered with success only when the host keeps it: host/observe then shows the record, bound to the app, the request and the installed release, and shows it for that app only (not for one whose id extends or cuts short its own)",
			Clause: spec(SpecDesktop, "Shared platform capabilities; Desktop levels", "Evidence: lime.evidence: Important runs and external side effects keep provenance. ... Desktop P3: Provide ... local evidence projection.")},
		{ID: "APP-UPDATES-CHECK", BugFamilies: []BugFamily{RepresentationLimit, ChangeBetweenReads, WhoAnswers}, Reading: "lime.appUpdates check", Strength: Must, Levels: p3,
			Title:  "lime.appUpdates check names the newer release the host's registry enables for the app, and with the registry down is a host:error, never an answer that the app is up to date",
			Clause: spec(SpecDesktop, "Shared platform capabilities", "The host checks releases, downloads, switches versions, and rolls back; apps do not build private updaters.")},
	}
}
