package levels

// Spec file names of ../shared/spec, by their short number.
const (
	SpecMain    = "000 Specification"
	SpecRuntime = "001 Runtime model"
	SpecDesktop = "002 Desktop host conformance"
	SpecRelease = "003 Release and distribution"
	ProtocolDoc = "docs/host-control-protocol.md"
	NotesDoc    = "SPEC-NOTES interoperability facts"
)

func allLevels() []Level {
	return []Level{
		{ID: "catalog", Name: "Catalog", Family: Generic, Rank: 1, Judged: true,
			Meaning: "Host discovers APP.md and displays app metadata."},
		{ID: "installable", Name: "Installable", Family: Generic, Rank: 2, Judged: true,
			Meaning: "Host verifies package, projects catalog objects, installs / uninstalls, and preserves provenance."},
		{ID: "capability", Name: "Capability", Family: Generic, Rank: 3, Judged: true, Browser: true,
			Meaning: "Host injects SDK capability handles according to manifest and intercepts permissions."},
		{ID: "runtime", Name: "Runtime", Family: Generic, Rank: 4, Judged: true, Browser: true,
			Meaning: "Host runs UI, workers, workflows, storage migrations, agent tasks, and artifacts."},
		{ID: "product", Name: "Product", Family: Generic, Rank: 5, Judged: true, Browser: true,
			Meaning: "App has independent business UI, data model, workflows, deliverables, upgrades, and regression validation."},
		{ID: "executable", Name: "Executable", Family: Generic, Rank: 6, Browser: true, Judged: true,
			Meaning: "Host can run typed workflows, typed SDK calls, overlays, readiness, evidence, and regression evals."},
		{ID: "desktop-p0", Name: "Desktop P0", Family: Desktop, Rank: 0, Judged: true,
			Meaning: "Read packages, verify hashes, emit projection, run readiness; must not execute app UI, workers, or workflows."},
		{ID: "desktop-p1", Name: "Desktop P1", Family: Desktop, Rank: 1, Judged: true, Browser: true,
			Meaning: "Show app center, install state, setup tasks, blocked / needs-setup; must not pretend blocked work succeeded."},
		{ID: "desktop-p2", Name: "Desktop P2", Family: Desktop, Rank: 2, Judged: true, Browser: true,
			Meaning: "Inject Host Bridge and Capability SDK, run controlled UI."},
		{ID: "desktop-p3", Name: "Desktop P3", Family: Desktop, Rank: 3, Judged: true, Browser: true,
			Meaning: "Provide model settings, OAuth session, OEM, billing, updates, and local evidence projection."},
		{ID: "desktop-p4", Name: "Desktop P4", Family: Desktop, Rank: 4, Judged: true, Browser: true,
			Meaning: "Let multiple apps share host capabilities and support uninstall, disable, update, and rollback."},
		{ID: "desktop-p5", Name: "Desktop P5", Family: Desktop, Rank: 5, Judged: true, Browser: true,
			Meaning: "Reuse the same contract in Tauri or runtime-backed shells."},
		{ID: "desktop-p6", Name: "Desktop P6", Family: Desktop, Rank: 6, Judged: true, Browser: true,
			Meaning: "Run app-owned backend services and app storage under host supervision."},
	}
}

func spec(file, section, quote string) Clause {
	return Clause{Source: SpecText, File: file, Section: section, Quote: quote}
}

func guide(section, quote string) Clause {
	return Clause{Source: GuideText, File: NotesDoc, Section: section, Quote: quote}
}

func proto(section, quote string) Clause {
	return Clause{Source: ProtocolText, File: ProtocolDoc, Section: section, Quote: quote}
}

// allRequirements lists every requirement, in catalog order: the order
// `conformance levels` and the report list them in.
func allRequirements() []Requirement {
	reqs := catalogRequirements()
	reqs = append(reqs, installRequirements()...)
	reqs = append(reqs, surfaceRequirements()...)
	reqs = append(reqs, agentRequirements()...)
	reqs = append(reqs, migrationRequirements()...)
	reqs = append(reqs, overlayRequirements()...)
	reqs = append(reqs, platformRequirements()...)
	reqs = append(reqs, backendRequirements()...)
	reqs = append(reqs, workflowRequirements()...)
	return append(reqs, dataRequirements()...)
}

// catalogRequirements are the control protocol's preconditions and the
// Catalog level's: discovery of APP.md and its metadata (spec 000,
// Identity and presentation; Entry model; Layered files).
func catalogRequirements() []Requirement {
	catalogP0 := []string{"catalog", "desktop-p0"}
	pkg := []RefusalKind{RefusesPackage}
	return []Requirement{
		// Control protocol: what every other check stands on.
		{ID: "PROTO-HELLO", BugFamilies: []BugFamily{EveryMember}, Strength: Must, Kind: Precondition, Levels: catalogP0,
			Title:  "conformance/hello names the host, its kind, protocol version 1 and its capability profile",
			Clause: proto("conformance/hello", "The host answers with its identity, kind, protocol version and capability profile.")},
		{ID: "PROTO-RESET", BugFamilies: []BugFamily{EveryTransition}, Strength: Must, Kind: Precondition, Levels: catalogP0,
			Title:  "host/reset leaves a fresh host with no installed app and no retained data",
			Clause: proto("host/reset", "After host/reset the host holds no installed app, no retained data and no configuration.")},
		{ID: "PROTO-ERRORS", BugFamilies: []BugFamily{EveryMember, EveryEntryPoint}, Strength: Must, Kind: Precondition, Levels: catalogP0,
			Title:  "Unknown methods and invalid params get the stable JSON-RPC error codes",
			Clause: proto("Errors", "An unknown or reserved method is answered with -32601; missing or mistyped params with -32602.")},
		{ID: "PROTO-RESULT-SCHEMA", BugFamilies: []BugFamily{EveryEntryPoint}, Strength: Must, Kind: Precondition, Levels: catalogP0,
			Title:  "Every result the host answers matches its method's result schema",
			Clause: proto("Schemas", "drivers/protocol/schemas/ holds one JSON Schema (draft 2020-12) per method's params and result")},

		// Catalog: discovery and metadata.
		{ID: "CAT-DISCOVER-APPMD", BugFamilies: []BugFamily{EveryEntryPoint}, Refusal: pkg, Strength: Must, Levels: catalogP0,
			Title:  "Apps are discovered through APP.md: identity comes from its frontmatter, and a folder without APP.md is no app",
			Clause: spec(SpecMain, "Runtime contract", "Discover apps through APP.md.")},
		{ID: "CAT-FRONTMATTER-REQUIRED", BugFamilies: []BugFamily{EveryMember}, Refusal: pkg, Strength: Must, Levels: catalogP0,
			Title:  "APP.md without frontmatter or a required field is rejected, naming the field",
			Clause: spec(SpecMain, "APP.md", "APP.md must contain YAML frontmatter and Markdown guidance.")},
		{ID: "CAT-MANIFEST-VERSION", BugFamilies: []BugFamily{EveryMember, RepresentationLimit}, Refusal: pkg, Strength: Must, Levels: catalogP0,
			Title:  "A manifestVersion the standard does not know is rejected, and every one it knows (0.3.0 to 0.10.0) is accepted",
			Clause: guide("Client-implementation guides", "unsupported manifest versions are rejected")},
		{ID: "CAT-FIELD-CONSTRAINTS", BugFamilies: []BugFamily{EveryMember, RepresentationLimit}, Refusal: pkg, Reading: "Field constraints", Strength: Must, Levels: catalogP0,
			Title:  "APP.md fields are checked against their constraints: lengths counted in characters and the number of keywords and categories, each on both sides of its bound, the status and appType vocabularies, and the timeline fields as date-times of the calendar",
			Clause: spec(SpecMain, "Required fields; Identity and presentation; Version and timeline", "name 1-64 characters; description 1-1024 characters; status draft, ready, needs-review, deprecated, or archived; appType agent-app, workflow-app, domain-app, customer-app, or custom. ... shortDescription 1-140 chars ... keywords Catalog search keywords (max 32) ... categories Top-level catalog categories (max 8). ... createdAt ISO 8601; first appearance in any registry. updatedAt ISO 8601 ... releasedAt ISO 8601 ... deprecatedAt ISO 8601 ... endOfLifeAt ISO 8601")},
		{ID: "CAT-NO-BYPASS-PERMISSIONS", BugFamilies: []BugFamily{EveryMember}, Refusal: pkg, Reading: "Declaring bypassPermissions", Strength: MustNot, Levels: catalogP0,
			Title:  "A manifest that declares bypassPermissions, in APP.md or a layered file, is not accepted",
			Clause: spec(SpecMain, "Runtime approval", "Agent App manifests must not declare bypassPermissions.")},
		{ID: "CAT-METADATA", BugFamilies: []BugFamily{EveryMember}, Strength: Must, Levels: catalogP0,
			Title:  "The catalog card shows the app's metadata: name, version, description, displayName, status, appType, publisher",
			Clause: spec(SpecMain, "Conformance levels", "Host discovers APP.md and displays app metadata.")},
		{ID: "CAT-PUBLISHER-VERIFIED", BugFamilies: []BugFamily{EveryMember}, Strength: MustNot, Levels: catalogP0,
			Title:  "A publisher that declares itself verified is never shown as verified by the host",
			Clause: spec(SpecMain, "Identity and presentation", "publisher.verified: Host-decided: written by the registry after verification; ignored if self-declared.")},
		{ID: "CAT-LAYERED-LOAD", BugFamilies: []BugFamily{EveryMember}, Strength: Must, Levels: catalogP0,
			Title:  "Independent app.*.yaml files are loaded by file-name convention",
			Clause: spec(SpecMain, "Layered configuration", "Hosts load these files by file-name convention while parsing the manifest.")},
		{ID: "CAT-LAYERED-PRECEDENCE", BugFamilies: []BugFamily{EveryMember}, Strength: Must, Levels: catalogP0,
			Title:  "When frontmatter and an independent file disagree, the independent file wins",
			Clause: spec(SpecMain, "Layered configuration", "When frontmatter and an independent file disagree, the independent file wins.")},
		{ID: "CAT-LEGACY-KINDS", BugFamilies: []BugFamily{EveryMember}, Refusal: pkg, Strength: MustNot, Levels: catalogP0,
			Title:  "Legacy entry kinds home and scene are never projected as current entry kinds",
			Clause: spec(SpecMain, "Entry model", "scene / home entries from older manifests are compatibility only.")},
	}
}
