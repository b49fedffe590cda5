package mockhost

import (
	"encoding/json"
	"sync"

	"github.com/agentapp/conformance/drivers/hostbridge"
	"github.com/agentapp/conformance/drivers/protocol"
)

// frameFacts is what a faulty host kept of the task facts an app's frame
// posted (the frame-* faults below); a correct host keeps nothing.
type frameFacts struct {
	mu sync.Mutex
	// artifacts and evidence are the posted artifact:created and
	// evidence:recorded payloads, by app id (and artifact id).
	artifacts map[string]map[string]json.RawMessage
	evidence  map[string][]json.RawMessage
}

// postedTaskFact reads body as a lime.agent-task-event.v1 envelope naming
// a task; false when it is none.
func postedTaskFact(body json.RawMessage) (hostbridge.TaskEvent, bool) {
	var e hostbridge.TaskEvent
	if json.Unmarshal(body, &e) != nil || e.SchemaVersion != hostbridge.TaskEventSchema || e.TaskID == "" {
		return e, false
	}
	return e, true
}

// frameFact is what the host does with a task fact the app's frame posts:
// nothing of it becomes the task's (001 Forbidden paths: "App UI state
// fabricating successful assistant:delta, tool result, artifact, or
// evidence events"; 000: task facts "must derive from RuntimeCore facts,
// not app UI state"). The faults take it the ways a host could; relay is
// set under those that project it to the app.
func (h *Host) frameFact(l *launch, e hostbridge.TaskEvent, relay bool) {
	c := h.agent
	c.mu.Lock()
	var t *agentTaskLink
	for _, x := range c.tasks {
		if x.taskID == e.TaskID && x.l.appID == l.appID && !x.ended {
			t = x
		}
	}
	if t == nil {
		c.mu.Unlock()
		return
	}
	if relay {
		h.pushTaskEventLocked(t, e)
	}
	// variant: frame-facts-end-task — a task fact the app's frame posts ends its task closed: a result of the host's own that is no success, and nothing more of the App Server's.
	if h.variants.Has("frame-facts-end-task") {
		h.pushTaskEventLocked(t, hostbridge.TaskEvent{Type: "result", Subtype: "error_permission_denied",
			Payload: json.RawMessage(`{"message":"The app posted a task fact of its own; the task was stopped."}`)})
		t.ended, t.endedByApp = true, true
		t.finishLocked()
	}
	// fault: frame-result-ends-task — a result the app's frame posts for its task ends the task: the App Server's later facts of it are dropped.
	if e.Type == "result" && h.faults.Has("frame-result-ends-task") {
		t.ended, t.endedByApp = true, true
		t.finishLocked()
	}
	c.mu.Unlock()
	f := &h.frameFacts
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	// fault: frame-artifact-kept — an artifact:created the app's frame posts is kept as an artifact of the app's runtime: host/observe lists it and lime.artifacts read answers it.
	case e.Type == "artifact:created" && h.faults.Has("frame-artifact-kept"):
		var a struct {
			ArtifactID string `json:"artifactId"`
		}
		if json.Unmarshal(e.Payload, &a) == nil && a.ArtifactID != "" && len(f.artifacts[l.appID]) < maxLogged {
			if f.artifacts == nil {
				f.artifacts = map[string]map[string]json.RawMessage{}
			}
			if f.artifacts[l.appID] == nil {
				f.artifacts[l.appID] = map[string]json.RawMessage{}
			}
			f.artifacts[l.appID][a.ArtifactID] = e.Payload
			w := h.workflows
			w.mu.Lock()
			w.artifacts[l.appID] = append(w.artifacts[l.appID], protocol.ArtifactRecord{ArtifactID: a.ArtifactID, AppID: l.appID, Version: l.version})
			w.mu.Unlock()
		}
	// fault: frame-evidence-exported — evidence:recorded the app's frame posts joins what lime.evidence export answers.
	case e.Type == "evidence:recorded" && h.faults.Has("frame-evidence-exported"):
		if f.evidence == nil {
			f.evidence = map[string][]json.RawMessage{}
		}
		if len(f.evidence[l.appID]) < maxLogged {
			f.evidence[l.appID] = append(f.evidence[l.appID], e.Payload)
		}
	}
}

// postedArtifact is an artifact the frame posted that a faulty host kept.
func (h *Host) postedArtifact(appID, id string) (json.RawMessage, bool) {
	f := &h.frameFacts
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.artifacts[appID][id]
	return a, ok
}

// postedEvidence is the evidence the frame posted that a faulty host kept.
func (h *Host) postedEvidence(appID string) []json.RawMessage {
	f := &h.frameFacts
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]json.RawMessage(nil), f.evidence[appID]...)
}
