package levels

// overlayRequirements are the host duties around an app's overlays: the
// tenant, user and workspace values its overlayTemplates let them set
// (spec 000 Overlay precedence and Overlay package; spec 003 What must not
// be overwritten).
func overlayRequirements() []Requirement {
	return []Requirement{
		{ID: "OVERLAY-PRECEDENCE", BugFamilies: []BugFamily{RepresentationLimit, ChangeBetweenReads}, Reading: "Overlays", Strength: Must, Levels: []string{"executable"},
			Title:  "A name several overlays set takes the value of the highest scope that sets it, workspace over user over tenant, whatever order they were set in",
			Clause: spec(SpecMain, "Overlay precedence", "Workspace Override > User Overlay > Tenant Overlay > App Default > Host Default")},
		{ID: "OVERLAY-KEEPS-PACKAGE-HASH", BugFamilies: []BugFamily{EveryMember}, Reading: "Overlays", Strength: MustNot, Levels: []string{"executable"},
			Title:  "Setting overlays leaves the installed package as it was released: it still hashes to its packageHash, app/list names that hash and the app stays ready",
			Clause: spec(SpecMain, "Overlay precedence; Overlay package", "Overlays must not modify the official package hash. ... Overlays must not override the official package hash, write plaintext secrets into package files, or bypass readiness and policy.")},
		{ID: "OVERLAY-NO-BYPASS", BugFamilies: []BugFamily{EveryMember}, Reading: "Overlays", Strength: MustNot, Levels: []string{"executable"},
			Title:  "No overlay, of any scope, lifts a readiness gate (a required permission not granted) or tenant policy (a denied entry), whatever names it sets",
			Clause: spec(SpecMain, "Overlay package", "Overlays must not override the official package hash, write plaintext secrets into package files, or bypass readiness and policy.")},
		{ID: "PROTO-OVERLAY-KEY-EXACT", BugFamilies: []BugFamily{ConfusableIdentity, RepresentationLimit}, Reading: "Overlays", Strength: Must, Kind: Precondition, Levels: []string{"executable"},
			Title:  "app/overlay sets only a template the app declares, under its exact key and scope: a key in another case, padded, cut short or extended, or another scope, is refused with -32602 naming key or scope",
			Clause: proto("app/overlay", "-32602 naming `key` or `scope` for a template the app does not declare or a scope that is not the template's")},
		{ID: "UPDATE-KEEPS-OVERLAYS", BugFamilies: []BugFamily{EveryMember, EveryTransition}, Reading: "Overlays", Strength: MustNot, Levels: []string{"product", "desktop-p4"},
			Title:  "An update to a newer release, and a rollback from it, keep the tenant overlays, user overrides and workspace overrides as last set, before the update or between the transitions (a name set, a value changed, an overlay cleared): the same values stay in effect from the same scopes",
			Clause: spec(SpecRelease, "What must not be overwritten", "A release upgrade must not overwrite: ... tenant overlays - user overrides ... Official package defaults can change. User and tenant state must remain separate.")},
	}
}
