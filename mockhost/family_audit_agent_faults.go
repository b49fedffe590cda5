package mockhost

// agentAuditFaults are the faults of the family audit of the agent area
// (docs/decisions.md, "Families every spec is checked against"): each breaks
// the family a spec of the area covers for a requirement, beyond the one
// representative case an earlier fault broke.
func agentAuditFaults() []Fault {
	return []Fault{
		{Name: "approval-answered-by-any-id", Breaks: []string{"AGENT-APPROVAL"},
			Description: "lime.agent respondApproval naming a request id or task that has no waiting approval answers the app's first waiting approval instead of being refused (who answers)"},
		{Name: "agent-cancel-any-task", Breaks: []string{"AGENT-CANCEL-MAPPED"},
			Description: "lime.agent cancelTask naming no running task of the app cancels the app's running task on the App Server (who answers)"},
		{Name: "agent-resume-workspace-prefix", Breaks: []string{"AGENT-RESUME-CONFIRMED"},
			Description: "a session agentSession/read places in a workspace whose id begins with the current workspace's id is resumed as the current workspace's (confusable identities)"},
		{Name: "workflow-respond-current-review", Breaks: []string{"WORKFLOW-HUMAN-REVIEW"},
			Description: "lime.workflow respond naming no run of the app decides the app's run waiting at a human review (who answers)"},
		{Name: "workflow-run-owner-prefix", Breaks: []string{"WORKFLOW-RUNS-ISOLATED"},
			Description: "a run's owner is checked as a prefix: an app reads and drives the runs of every app whose id begins with its own (confusable identities)"},
		{Name: "backend-grants-prefixed-apps", Breaks: []string{"BACKEND-NO-HOST-ACCESS"},
			Description: "the backend's sandbox also opens the data folders of every app whose id begins with its app's id, taken for its own releases (confusable identities)"},
		{Name: "backend-relaunch-stderr-lost", Breaks: []string{"BACKEND-LOGS-CAPTURED"},
			Description: "only a backend's first process has its stderr captured: started again after app/disable and app/enable, what it writes is lost (every transition)"},
	}
}
