package mockhost

// heldOutH2Faults are more survivors of the held-out batch 2026-11-28b
// (mockhost/heldout/2026-11-28b), turned into faults once the specs of their
// families were fixed.
func heldOutH2Faults() []Fault {
	return []Fault{
		{Name: "rollback-restores-old-overlays", Breaks: []string{"UPDATE-KEEPS-OVERLAYS"},
			Description: "app/update keeps the app's overlays with the release it replaces and app/rollback brings them back: an overlay set, changed or cleared after the update is undone by the rollback (held-out h15)"},
		{Name: "telemetry-content-opt-in-latched", Breaks: []string{"TELEMETRY-NO-CONTENT"},
			Description: "the exporter keeps, per collector, the content opt-in of the first host/configure that named it: after a host/configure turning content export off, spans still carry the prompt text, user content and artifact bodies (held-out h16)"},
		{Name: "telemetry-content-opt-in-on-change", Breaks: []string{"TELEMETRY-NO-CONTENT"},
			Description: "the exporter starts with content capture on and applies a configuration's content opt-in only once it differs from the first one that named the collector: configured with content export off from the start, spans carry the prompt text, user content and artifact bodies (second read of h16)"},
	}
}
