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
		{ID: "product", Name: "Product", Family: Generic, Rank: 5,
			Meaning: "App has independent business UI, data model, workflows, deliverables, upgrades, and regression validation."},
		{ID: "executable", Name: "Executable", Family: Generic, Rank: 6,
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

func allRequirements() []Requirement {
	catalogP0 := []string{"catalog", "desktop-p0"}
	installP0 := []string{"installable", "desktop-p0"}
	readyP0 := []string{"executable", "desktop-p0"}
	// A registry is one source of packages among several (002 Discovery:
	// "local directories, registry entries, OEM bootstrap payloads, or
	// development fixtures"; 003: "A registry can distribute packages"), so
	// no generic level's text needs one; Desktop P3's app updates come from
	// it (002: "The host checks releases, downloads, switches versions").
	registryLevels := []string{"desktop-p3"}
	pkg := []RefusalKind{RefusesPackage}
	ready := []RefusalKind{NotReady}
	pkgOrReady := []RefusalKind{RefusesPackage, NotReady}
	reqs := []Requirement{
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
			Title:  "APP.md fields are checked against their constraints: lengths counted in characters on both sides of each bound, and the status and appType vocabularies",
			Clause: spec(SpecMain, "Required fields", "name 1-64 characters; description 1-1024 characters; status draft, ready, needs-review, deprecated, or archived; appType agent-app, workflow-app, domain-app, customer-app, or custom.")},
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

		// Verification.
		{ID: "VERIFY-PACKAGE-HASH", BugFamilies: []BugFamily{EveryMember}, Refusal: pkg, Strength: Must, Levels: installP0,
			Title:  "A package whose files changed after hashing fails verification",
			Clause: spec(SpecMain, "Package signing and revocation", "Verify packageHash and manifest hash. ... Block install and alert on any failure.")},
		{ID: "VERIFY-MANIFEST-HASH", BugFamilies: []BugFamily{RepresentationLimit}, Refusal: pkg, Strength: Must, Levels: installP0,
			Title:  "A package whose APP.md does not match the expected manifestHash fails verification",
			Clause: spec(SpecDesktop, "Required desktop host behavior", "Verify package hash, manifest hash, signatures, and version compatibility.")},
		{ID: "VERIFY-HASH-ALGORITHM", BugFamilies: []BugFamily{RepresentationLimit}, Reading: "The hash walk", Strength: Must, Levels: installP0,
			Title: "packageHash and manifestHash are computed as the standard's tooling computes them",
			Clause: Clause{Source: InteropFact, File: NotesDoc, Section: "Facts from the standard's reference CLI",
				Quote: "packageHash = sha256: + hex SHA-256 over every file of the package ... each directory's entries are sorted by name on their own"}},
		{ID: "VERIFY-SIGNATURE-FILE", BugFamilies: []BugFamily{RepresentationLimit}, Refusal: pkg, Strength: Must, Levels: installP0,
			Title:  "A manifest hash in app.signature.yaml that disagrees with APP.md fails verification",
			Clause: spec(SpecMain, "Package signing and revocation", "Hosts must verify in this order: Verify packageHash and manifest hash.")},
		{ID: "VERIFY-COMPATIBILITY", BugFamilies: []BugFamily{RepresentationLimit}, Refusal: pkg, Strength: Must, Levels: installP0,
			Title:  "Capability version ranges the host profile does not satisfy fail verification, naming the capability",
			Clause: spec(SpecMain, "Runtime contract", "Verify package hash, signature, manifest, and capability versions.")},
		{ID: "VERIFY-HOST-VERSION", BugFamilies: []BugFamily{RepresentationLimit}, Refusal: pkgOrReady, Strength: Must, Levels: installP0,
			Title:  "An app whose requires.lime range the host's app runtime does not satisfy is refused or blocked, naming it",
			Clause: spec(SpecDesktop, "Required desktop host behavior", "Verify package hash, manifest hash, signatures, and version compatibility.")},
		{ID: "PKG-NO-PARENT-REFS", BugFamilies: []BugFamily{EveryMember, EveryEntryPoint}, Refusal: pkg, Strength: MustNot, Levels: installP0,
			Title:  "A reference that climbs out of the package (../) is rejected, never followed",
			Clause: guide("Symlinks and containment", "A conforming host must not read outside the package")},
		{ID: "PKG-NO-ESCAPING-LINKS", BugFamilies: []BugFamily{EveryMember}, Refusal: pkg, Reading: "Symlinks", Strength: MustNot, Levels: installP0,
			Title:  "A symlink that leaves the package, dangles or loops, and a special file, are rejected, never read",
			Clause: guide("Symlinks and containment", "rejects links that leave the package, dangling links, cycles and special files with a clear error")},
		{ID: "PKG-HOSTILE-YAML", BugFamilies: []BugFamily{EveryMember, RepresentationLimit}, Refusal: pkg, Reading: "Hostile YAML", Strength: Must, Levels: installP0,
			Title:  "Malformed, deeply nested, alias-bomb, oversized and non-UTF-8 manifests are rejected and the host keeps answering",
			Clause: guide("Bad input", "the harness parses YAML with a real parser, with limits on size, depth and alias expansion")},

		// Install and uninstall.
		{ID: "INSTALL-VERIFY-FIRST", BugFamilies: []BugFamily{EveryMember}, Refusal: pkg, Strength: MustNot, Levels: []string{"installable", "desktop-p1"},
			Title:  "A package that fails verification is never installed",
			Clause: spec(SpecMain, "Package signing and revocation", "Block install and alert on any failure.")},
		{ID: "INSTALL-CONSENT", BugFamilies: []BugFamily{EveryMember}, Refusal: pkg, Strength: Must, Levels: []string{"installable", "desktop-p1"},
			Title:  "Install happens only after user, tenant or workspace consent",
			Clause: spec(SpecMain, "Runtime contract", "Install or activate an app only after user, tenant, or workspace consent.")},
		{ID: "INSTALL-PINNED", BugFamilies: []BugFamily{EveryMember}, Strength: Should, Levels: []string{"installable", "desktop-p1"},
			Title:  "An installed app records exactly which package was installed (packageHash and manifestHash)",
			Clause: spec(SpecRelease, "Channels and pins", "A host should know exactly which package was installed.")},
		{ID: "INSTALL-REGISTERS", BugFamilies: []BugFamily{EveryMember}, Strength: Must, Levels: []string{"installable", "desktop-p1"},
			Title:  "Install registers every projected entry, service, skill, knowledge template, tool, artifact type, eval and permission into the host's catalogs",
			Clause: spec(SpecMain, "Runtime contract", "Generate projection and register entries, UI, storage, services, skills, knowledge, tools, artifacts, evals, and permissions into host catalogs.")},
		{ID: "VERIFY-REVOCATION", BugFamilies: []BugFamily{EveryEntryPoint}, Refusal: pkg, Strength: Must, Levels: []string{"installable", "desktop-p1"},
			Title:  "The host asks the package's revocation.checkUrl and refuses a revoked package, at verify and at install",
			Clause: spec(SpecMain, "Package signing and revocation", "Call revocation.checkUrl (with cache) for revocation status. ... Block install and alert on any failure.")},
		{ID: "VERIFY-REVOCATION-CACHE", BugFamilies: []BugFamily{ChangeBetweenReads, ConfusableIdentity}, Refusal: pkg, Reading: "The revocation cache", Strength: Must, Levels: []string{"installable", "desktop-p1"},
			Title:  "A cached revocation answer older than cacheSeconds (by the configured clock) is asked again",
			Clause: spec(SpecMain, "Package signing and revocation", "Call revocation.checkUrl (with cache) for revocation status.")},
		{ID: "CAT-DISPLAYNAME-I18N", BugFamilies: []BugFamily{ConfusableIdentity}, Reading: "Localised display names", Strength: Should, Levels: []string{"installable", "desktop-p1"},
			Title:  "The catalog row of an installed app shows its displayNameI18n override for the host's locale, and the displayName for a locale it does not override",
			Clause: spec(SpecMain, "Identity and presentation", "displayNameI18n: locale -> displayName overrides.")},
		{ID: "INSTALL-REVIEW", BugFamilies: []BugFamily{EveryMember}, Reading: "The install review", Strength: Must, Levels: []string{"installable", "desktop-p1"},
			Title:  "Before consent the host gives an install review: each verification step (hashes, signature, revocation, publisher) with its result, in order, installing nothing",
			Clause: spec(SpecDesktop, "Required desktop host behavior", "Verification: Verify package hash, manifest hash, signatures, and version compatibility. What the app sees: Install review result.")},
		{ID: "VERIFY-SIGSTORE", BugFamilies: []BugFamily{EveryMember, EveryEntryPoint}, Refusal: pkg, Reading: "Sigstore signatures", Strength: Must, Levels: []string{"installable", "desktop-p1"},
			Title:  "A package signed with sigstore verifies only with a bundle over its package hash, from the trusted root, by a signer of its verifiedDomain; otherwise verify and install refuse it, naming the signature",
			Clause: spec(SpecMain, "Package signing and revocation", "2. Verify the sigstore signature. ... 5. Block install and alert on any failure.")},
		{ID: "VERIFY-PUBLISHER", BugFamilies: []BugFamily{EveryMember, EveryEntryPoint, ConfusableIdentity}, Refusal: pkg, Reading: "Publisher and verifiedDomain", Strength: Must, Levels: []string{"installable", "desktop-p1"},
			Title:  "A package whose publisherId or verifiedDomain disagrees with the registry's publisher is refused at verify and install, naming the field",
			Clause: spec(SpecMain, "Package signing and revocation", "4. Verify publisher and verifiedDomain. 5. Block install and alert on any failure.")},
		{ID: "VERIFY-ORDER", BugFamilies: []BugFamily{EveryMember}, Refusal: pkg, Strength: Must, Levels: []string{"installable", "desktop-p1"},
			Title:  "Verification runs in the standard's order: a package whose hashes or sigstore signature fail never reaches the revocation service",
			Clause: spec(SpecMain, "Package signing and revocation", "Hosts must verify in this order: 1. Verify packageHash and manifest hash. 2. Verify the sigstore signature. 3. Call revocation.checkUrl")},
		{ID: "VERIFY-REVOCATION-FAIL-CLOSED", BugFamilies: []BugFamily{EveryMember, RepresentationLimit}, Refusal: pkg, Reading: "An unreachable revocation endpoint", Strength: Must, Levels: []string{"installable", "desktop-p1"},
			Title:  "A package whose revocation status cannot be had (the service down, silent, answering an error status, a redirect to nothing, garbage, or JSON without a revoked member or with null) is refused, naming revocation",
			Clause: spec(SpecMain, "Package signing and revocation", "Block install and alert on any failure.")},
		{ID: "REGISTRY-TENANT-ENABLED", BugFamilies: []BugFamily{EveryEntryPoint, ChangeBetweenReads}, Reading: "The registry the harness plays", Strength: Must, Levels: registryLevels,
			Title:  "The host offers and installs only releases its registry enables for its tenant; another release is refused, naming it, and never installed",
			Clause: spec(SpecRelease, "Distribution flow", "Tenant->>Registry: Enable release or channel ... Registry-->>Host: Enabled releases and policy defaults ... Host->>Host: Install only after consent and policy pass")},
		{ID: "REGISTRY-WITHDRAWN", BugFamilies: []BugFamily{EveryEntryPoint, ChangeBetweenReads}, Reading: "Withdrawn releases", Strength: Must, Levels: registryLevels,
			Title:  "A release the registry has withdrawn is neither offered nor installed",
			Clause: spec(SpecRelease, "Distribution flow", "Registry-->>Host: Enabled releases and policy defaults ... Host->>Host: Install only after consent and policy pass")},
		{ID: "REGISTRY-PINNED-CHANNEL", BugFamilies: []BugFamily{EveryEntryPoint}, Strength: Should, Levels: registryLevels,
			Title:  "A channel the tenant enabled installs the one release it pins, and the host records exactly that release's packageHash",
			Clause: spec(SpecRelease, "Channels and pins", "tenant enablement should resolve to a concrete release. ... A host should know exactly which package was installed.")},
		{ID: "REGISTRY-METADATA-FIRST", BugFamilies: []BugFamily{EveryEntryPoint}, Reading: "Release compatibility", Strength: Should, Levels: registryLevels,
			Title:  "The host decides from the release object's compatibility whether it can install a release before it downloads the package",
			Clause: spec(SpecRelease, "Release object", "A release should include enough metadata for a host to decide whether it can install the package before downloading every support file.")},
		{ID: "REGISTRY-OUTAGE", BugFamilies: []BugFamily{EveryMember}, Strength: Must, Levels: registryLevels,
			Title:  "Apps installed from the registry stay listed and ready while the registry is down, silent, answering garbage or dropping its connections",
			Clause: spec(SpecRuntime, "A host runtime is acceptable when", "A host runtime is acceptable when: ... registry failure does not break already installed local apps unless policy requires disablement")},
		{ID: "REGISTRY-VERIFIED", BugFamilies: []BugFamily{EveryMember, EveryEntryPoint}, Refusal: pkg, Reading: "The registry the harness plays", Strength: Must, Levels: registryLevels,
			Title:  "A release installed from the registry is verified as a package folder is: a download that does not hash to the release's packageHash, or whose release vouches for another publisher, is refused naming what differs, and never installed",
			Clause: spec(SpecMain, "Package signing and revocation", "Hosts must verify in this order: 1. Verify packageHash and manifest hash. ... 5. Block install and alert on any failure.")},
		{ID: "REGISTRY-ARCHIVE-CONTAINED", BugFamilies: []BugFamily{EveryMember, RepresentationLimit}, Reading: "Package archives", Strength: MustNot, Levels: registryLevels,
			Title:  "A release whose archive holds an entry that would land outside the folder it unpacks into (an absolute name, a name that climbs out with ../ anywhere in it, a backslash, a link) is refused (-32001 invalid-archive) and never installed",
			Clause: guide("Symlinks and containment", "A conforming host must not read outside the package")},
		{ID: "POLICY-INSTALL", BugFamilies: []BugFamily{ConfusableIdentity}, Strength: Must, Levels: []string{"installable", "desktop-p1"},
			Title:  "An app tenant policy denies is not installed, and the refusal says so (-32007); an app the policy does not name installs",
			Clause: spec(SpecRelease, "Distribution flow", "Host->>Host: Install only after consent and policy pass")},
		{ID: "READY-INSTALLED-HASH", BugFamilies: []BugFamily{EveryMember, ChangeBetweenReads, EveryEntryPoint}, Refusal: []RefusalKind{NotReadyInstalled}, Reading: "The installed copy", Strength: Should, Levels: []string{"installable", "desktop-p1"},
			Title:  "An installed app whose files changed since install (one edited at the same size, added or removed) is not ready, naming the file or the packageHash, and is ready again once the files are restored",
			Clause: spec(SpecMain, "Readiness", "Readiness should check: ... UI / worker / storage package is complete and hash-matched")},
		{ID: "UNINSTALL-KEEP-DATA", BugFamilies: []BugFamily{EveryTransition}, Strength: Must, Levels: []string{"installable", "desktop-p4"},
			Title:  "Uninstall keeping data removes the app and keeps its data",
			Clause: spec(SpecDesktop, "Required desktop host behavior", "Support disable, uninstall keep data, uninstall delete data, and export then delete.")},
		{ID: "UNINSTALL-DELETE-DATA", BugFamilies: []BugFamily{EveryEntryPoint, EveryTransition}, Strength: Must, Levels: []string{"installable", "desktop-p4"},
			Title:  "Uninstall deleting data removes the app and all its data",
			Clause: spec(SpecDesktop, "Required desktop host behavior", "Support disable, uninstall keep data, uninstall delete data, and export then delete.")},
		{ID: "UNINSTALL-ISOLATED", BugFamilies: []BugFamily{ConfusableIdentity, EveryTransition}, Strength: MustNot, Levels: []string{"installable", "desktop-p4"},
			Title:  "Uninstalling one app leaves every other installed app as it was",
			Clause: spec(SpecDesktop, "Conformance checklist", "disable / uninstall / update do not break other apps.")},

		// Projection.
		{ID: "PROJ-DETERMINISTIC", BugFamilies: []BugFamily{EveryMember}, Strength: Must, Levels: installP0,
			Title:  "Projection is byte-stable for the same package and host profile, wherever the package sits",
			Clause: spec(SpecMain, "Projection contract", "Projection is deterministic.")},
		{ID: "PROJ-PROVENANCE", BugFamilies: []BugFamily{EveryMember, ChangeBetweenReads}, Strength: Should, Levels: installP0,
			Title:  "Every projected object carries appName, appVersion, packageHash, manifestHash, standard and standardVersion",
			Clause: spec(SpecMain, "Projection contract", "Every projected object should include: appName + appVersion + packageHash + manifestHash + standard + standardVersion")},
		{ID: "PROJ-NO-SECRETS", BugFamilies: []BugFamily{EveryMember}, Strength: MustNot, Levels: installP0,
			Title:  "Projection never contains secret or session-token values the host holds",
			Clause: guide("Client-implementation guides", "projection must not read private files, load secrets, run UI bundle code, apply migrations or generate random ids")},
		{ID: "HOST-NO-SECRET-LEAK", BugFamilies: []BugFamily{EveryEntryPoint}, Reading: "Secrets in every answer", Strength: MustNot, Levels: []string{"installable", "desktop-p1"},
			Title:  "No answer of the host (results, errors and their data, findings, app/list) carries a secret or session-token value it holds",
			Clause: spec(SpecMain, "Shared host model", "The host must not expose bearer tokens, refresh tokens, provider keys, plaintext secrets, ... to apps.")},
		{ID: "PROJ-CONTENTS", BugFamilies: []BugFamily{EveryMember}, Strength: Should, Levels: installP0,
			Title:  "Projection includes app summary, capability requirements, entries, storage, services, knowledge templates, tools, artifact types, evals and permissions",
			Clause: spec(SpecMain, "Projection contract", "Projection output should include: app summary, capability requirements, projected entries, ... permissions and policy prompts, provenance")},
		{ID: "P0-NO-APP-CODE", BugFamilies: []BugFamily{EveryMember, EveryEntryPoint}, Strength: MustNot, Levels: installP0,
			Title:  "Verification, projection and readiness never execute package code: the worker does not run and the UI page is not loaded (workflows run only through a runtime, which P0 does not have)",
			Clause: spec(SpecDesktop, "Conformance levels", "Desktop P0: Read packages, verify hashes, emit projection, run readiness. Must not: Execute app UI, workers, or workflows.")},

		// Readiness.
		{ID: "READY-STATUS", BugFamilies: []BugFamily{EveryEntryPoint}, Strength: Should, Levels: readyP0,
			Title:  "A package with every check satisfied is ready, in the standard's status vocabulary",
			Clause: spec(SpecMain, "Readiness", "Readiness may return ready, needs-setup, or failed; hosts may also use ready-degraded, blocked, and unknown.")},
		{ID: "READY-REQUIRED-TIER", BugFamilies: []BugFamily{EveryEntryPoint}, Refusal: ready, Strength: Must, Levels: readyP0,
			Title:  "A failing required-tier check blocks launch: needs-setup or blocked",
			Clause: spec(SpecMain, "Readiness self-check model", "required: Block launch: needs-setup or blocked")},
		{ID: "READY-RECOMMENDED-TIER", BugFamilies: []BugFamily{EveryEntryPoint}, Strength: Must, Levels: readyP0,
			Title:  "A failing recommended-tier check warns but allows: ready-degraded",
			Clause: spec(SpecMain, "Readiness self-check model", "recommended: Warn but allow: ready-degraded")},
		{ID: "READY-PERFORMANCE-TIER", BugFamilies: []BugFamily{EveryEntryPoint}, Strength: Must, Levels: readyP0,
			Title:  "A failing performance-tier check only informs: ready or ready-degraded",
			Clause: spec(SpecMain, "Readiness self-check model", "performance: Inform: ready or ready-degraded")},
		{ID: "READY-SETUP-ACTIONS", BugFamilies: []BugFamily{EveryMember}, Strength: Must, Levels: readyP0,
			Title:  "Readiness failures are surfaced with setupActions pointing to a fix flow",
			Clause: spec(SpecMain, "Readiness self-check model", "Hosts must surface failures to the user and provide setupActions[] pointing to a fix flow.")},
		{ID: "READY-POLICY", BugFamilies: []BugFamily{ChangeBetweenReads, EveryEntryPoint}, Refusal: ready, Strength: Should, Levels: readyP0,
			Title:  "An entry tenant policy denies is not ready, naming it, while the app's other entries stay as they were",
			Clause: spec(SpecMain, "Readiness", "Readiness should check: ... policy allows the requested entry")},
		{ID: "READY-PERMISSIONS", BugFamilies: []BugFamily{EveryMember, ChangeBetweenReads, RepresentationLimit, ConfusableIdentity}, Refusal: ready, Strength: Should, Levels: readyP0,
			Title:  "An app whose required permission is not granted is not ready, naming the permission; an optional one does not hold it back",
			Clause: spec(SpecMain, "Readiness", "Readiness should check: ... required permissions are granted")},
		{ID: "READY-AVAILABILITY", BugFamilies: []BugFamily{EveryMember, RepresentationLimit, ChangeBetweenReads}, Refusal: ready, Strength: Should, Levels: readyP0,
			Title:  "An app whose required tool, skill or eval is not available on the host is not ready, naming it; an optional one does not hold it back",
			Clause: spec(SpecMain, "Readiness", "Readiness should check: ... required Skills, Tools, Artifact viewers, and Evals are available")},
		{ID: "READY-END-OF-LIFE", BugFamilies: []BugFamily{RepresentationLimit, ChangeBetweenReads}, Refusal: ready, Strength: Must, Levels: readyP0,
			Title:  "An app past endOfLifeAt (by the configured clock) is blocked and surfaces supersededBy",
			Clause: spec(SpecMain, "Metadata lifecycle", "Hosts must mark apps with endOfLifeAt < now as blocked in readiness and surface supersededBy")},
		{ID: "READY-DEPRECATED", BugFamilies: []BugFamily{RepresentationLimit, ChangeBetweenReads}, Strength: Must, Levels: readyP0,
			Title:  "An app past deprecatedAt shows a deprecation warning without blocking",
			Clause: spec(SpecMain, "Metadata lifecycle", "deprecatedAt < now shows a deprecation warning without blocking.")},
		{ID: "READY-SECRETS", BugFamilies: []BugFamily{EveryEntryPoint, ChangeBetweenReads}, Refusal: ready, Strength: Must, Levels: readyP0,
			Title:  "A required secret that is not configured keeps the app from ready and names the secret",
			Clause: spec(SpecDesktop, "Readiness state rules", "The host must explain which capability, policy, secret, billing state, model setting, or host version caused the failure.")},
		{ID: "READY-CAPABILITIES", BugFamilies: []BugFamily{ChangeBetweenReads}, Refusal: ready, Strength: Must, Levels: readyP0,
			Title:  "A required capability the host profile lacks keeps the app from ready and names the capability",
			Clause: spec(SpecMain, "Runtime contract", "Run readiness before execution: capability negotiation, permissions, Knowledge bindings, secrets, storage migrations, tool availability, policy.")},
		{ID: "READY-PER-ENTRY", BugFamilies: []BugFamily{EveryMember, ChangeBetweenReads, EveryEntryPoint}, Refusal: ready, Strength: Must, Levels: readyP0,
			Title:  "Entry readiness follows the entry's own requirements: one blocked entry does not block the others",
			Clause: spec(SpecDesktop, "Readiness state rules", "ready: The current entry can launch.")},
		{ID: "READY-NO-SECRET-LEAK", BugFamilies: []BugFamily{EveryMember, EveryEntryPoint}, Strength: MustNot, Levels: readyP0,
			Title:  "Readiness answers never contain secret or session-token values",
			Clause: spec(SpecMain, "Shared host model", "The host must not expose bearer tokens, refresh tokens, provider keys, plaintext secrets ... to apps.")},
	}
	reqs = append(reqs, surfaceRequirements()...)
	reqs = append(reqs, agentRequirements()...)
	reqs = append(reqs, migrationRequirements()...)
	reqs = append(reqs, overlayRequirements()...)
	reqs = append(reqs, platformRequirements()...)
	reqs = append(reqs, backendRequirements()...)
	reqs = append(reqs, workflowRequirements()...)
	return append(reqs, dataRequirements()...)
}
