package mockhost

import "encoding/json"

// projectFaults are the faults of package/project (project.go,
// projections.go): determinism, provenance, contents, secrets.
func projectFaults() []Fault {
	return []Fault{
		{Name: "projection-random-id", Breaks: []string{"PROJ-DETERMINISTIC"},
			Description: "projection stamps a random id on every entry"},
		{Name: "projection-timestamp", Breaks: []string{"PROJ-DETERMINISTIC"},
			Description: "projection records the time it was generated"},
		{Name: "projection-absolute-path", Breaks: []string{"PROJ-DETERMINISTIC"},
			Description: "projection carries the package's absolute path on the host"},
		{Name: "provenance-missing-on-entry", Breaks: []string{"PROJ-PROVENANCE"},
			Description: "the last projected entry carries no provenance"},
		// Its answer breaks the package/project schema in a member only
		// PROJ-PROVENANCE reads: every other check of the projection must
		// still judge, and the violation shows once, under PROTO-RESULT-SCHEMA.
		{Name: "projection-without-provenance", Breaks: []string{"PROJ-PROVENANCE", "PROTO-RESULT-SCHEMA"},
			Description: "the projection itself carries no provenance (its schema requires it); the app summary and the projected objects keep theirs"},
		{Name: "projection-embeds-secrets", Breaks: []string{"PROJ-NO-SECRETS", "HOST-NO-SECRET-LEAK"},
			Description: "projected secret slots carry the configured secret values"},
		{Name: "projection-cache-by-path", Breaks: []string{"PROJ-PROVENANCE"},
			Description: "projections are kept by package path, so a package changed in place is projected with its old hashes"},
		{Name: "projection-drops-permissions", Breaks: []string{"PROJ-CONTENTS"},
			Description: "projection omits permissions and policy prompts"},
		{Name: "exec-worker-on-project", Breaks: []string{"P0-NO-APP-CODE"},
			Description: "projection runs the package's worker to discover its routes"},
		{Name: "skill-scripts-run-on-project", Breaks: []string{"SKILL-SCRIPTS-NOT-RUN"},
			Description: "projection runs each bundled Skill's scripts to index what the Skill offers"},
	}
}

// markConfiguredSecrets marks each projected secret slot configured or not
// from host/configure's secrets (the fault projection-marks-configured-secrets).
func (h *Host) markConfiguredSecrets(raw json.RawMessage) json.RawMessage {
	cfg, _ := h.config()
	var proj map[string]any
	if json.Unmarshal(raw, &proj) != nil {
		return raw
	}
	slots, _ := proj["secrets"].([]any)
	for _, s := range slots {
		if m, ok := s.(map[string]any); ok {
			key, _ := m["key"].(string)
			m["configured"] = cfg.Secrets[key] != ""
		}
	}
	out, err := json.Marshal(proj)
	if err != nil {
		return raw
	}
	return out
}

// localizedProjection gives the projected app the display name name ("":
// the projection as it is): the bug behind projection-follows-locale.
func localizedProjection(raw json.RawMessage, name string) json.RawMessage {
	var proj map[string]any
	if name == "" || json.Unmarshal(raw, &proj) != nil {
		return raw
	}
	app, ok := proj["app"].(map[string]any)
	if !ok {
		return raw
	}
	app["displayName"] = name
	out, err := json.Marshal(proj)
	if err != nil {
		return raw
	}
	return out
}
