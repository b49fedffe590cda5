package mockhost

// catalogFaults are the faults of reading a package as a catalog entry
// (pkg.go, manifest_faults.go): APP.md, its frontmatter and independent
// files, field rules and the catalog card.
func catalogFaults() []Fault {
	return []Fault{
		{Name: "name-from-directory", Breaks: []string{"CAT-DISCOVER-APPMD"},
			Description: "app identity is taken from the folder name, not from APP.md"},
		{Name: "accept-missing-required", Breaks: []string{"CAT-FRONTMATTER-REQUIRED"},
			Description: "APP.md without frontmatter or with required fields missing is accepted"},
		{Name: "accept-any-manifest-version", Breaks: []string{"CAT-MANIFEST-VERSION"},
			Description: "any manifestVersion is accepted"},
		{Name: "count-bytes-not-characters", Breaks: []string{"CAT-FIELD-CONSTRAINTS"},
			Description: "field limits are counted in UTF-8 bytes, so a valid non-ASCII value at the limit is refused"},
		{Name: "no-length-limits", Breaks: []string{"CAT-FIELD-CONSTRAINTS"},
			Description: "field lengths are never checked"},
		{Name: "list-limits-unchecked", Breaks: []string{"CAT-FIELD-CONSTRAINTS"},
			Description: "keywords and categories take any number of items"},
		{Name: "list-limit-exclusive", Breaks: []string{"CAT-FIELD-CONSTRAINTS"},
			Description: "a list's item limit is read as exclusive: 32 keywords, or 8 categories, are refused"},
		{Name: "timeline-unchecked", Breaks: []string{"CAT-FIELD-CONSTRAINTS"},
			Description: "timeline fields (createdAt, updatedAt, releasedAt, deprecatedAt, endOfLifeAt) take any text"},
		{Name: "timeline-shape-only", Breaks: []string{"CAT-FIELD-CONSTRAINTS"},
			Description: "a timeline field is checked for the shape of a date-time, not for a day of the calendar: 2026-02-30T10:00:00Z verifies"},
		{Name: "timeline-z-only", Breaks: []string{"CAT-FIELD-CONSTRAINTS"},
			Description: "a timeline date-time with an offset (+08:00) instead of Z is refused"},
		{Name: "open-vocabularies", Breaks: []string{"CAT-FIELD-CONSTRAINTS"},
			Description: "status and appType take any value"},
		{Name: "only-current-manifest-version", Breaks: []string{"CAT-MANIFEST-VERSION"},
			Description: "any manifestVersion but the current 0.10.0 is refused"},
		{Name: "allow-bypass-permissions", Breaks: []string{"CAT-NO-BYPASS-PERMISSIONS"},
			Description: "a manifest declaring bypassPermissions is accepted"},
		{Name: "trust-self-declared-verified", Breaks: []string{"CAT-PUBLISHER-VERIFIED"},
			Description: "a publisher that declares itself verified is shown as verified"},
		{Name: "ignore-host-version", Breaks: []string{"VERIFY-HOST-VERSION"},
			Description: "requires.lime version ranges (the app runtime) are not checked"},
		// The default displayName on the catalog row is CAT-DISPLAYNAME-I18N's.
		{Name: "drop-display-metadata", Breaks: []string{"CAT-METADATA", "CAT-DISPLAYNAME-I18N"},
			Description: "the catalog card omits displayName and publisher"},
		{Name: "ignore-layered-files",
			Breaks:      []string{"CAT-LAYERED-LOAD"},
			Description: "independent app.*.yaml files are not loaded (so app.signature.yaml is not read either)"},
		{Name: "frontmatter-wins", Breaks: []string{"CAT-LAYERED-PRECEDENCE"},
			Description: "frontmatter wins over an independent file that disagrees"},
		{Name: "legacy-kinds-as-current", Breaks: []string{"CAT-LEGACY-KINDS"},
			Description: "home and scene entries of a 0.10.0 manifest are projected as ordinary entries"},
		{Name: "appmd-optional", Breaks: []string{"CAT-DISCOVER-APPMD"},
			Description: "a folder without APP.md is still taken for an app"},
		{Name: "ignore-locale", Breaks: []string{"CAT-DISPLAYNAME-I18N"},
			Description: "catalog rows always show the default displayName, whatever the host's locale"},
	}
}
