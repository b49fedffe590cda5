package protocol

import (
	"encoding/json"
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func mustLoad(t testing.TB) *Schemas {
	t.Helper()
	s, err := LoadSchemas()
	if err != nil {
		t.Fatalf("LoadSchemas: %v", err)
	}
	return s
}

func marshal(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const (
	hashA = "sha256:26e525952b0fead7bb01d37d4a3b2a9b267c666ff5149cbb8d83409ea31c4aab"
	hashB = "sha256:79dc6deb653bc4125dba9cb1f66fef3eeefaccf5339971cda4a9afe67bf1e758"
)

// Every method has both schemas, every embedded file is used, and the Go
// types of protocol.go produce answers their schemas accept.
func TestGoTypesMatchSchemas(t *testing.T) {
	s := mustLoad(t)
	pack, content := "pack-1", "notes of the user"
	app := InstalledApp{AppID: "a", Name: "a", Version: "1.0.0", PackageHash: hashA, ManifestHash: hashB, State: "installed"}
	prov := map[string]any{"appName": "a", "appVersion": "1.0.0", "packageHash": hashA, "manifestHash": hashB,
		"standard": "agentapp", "standardVersion": "0.10.0"}
	projection := marshal(t, map[string]any{"app": map[string]any{"provenance": prov}, "entries": []any{}, "provenance": prov})
	check := ReadinessCheck{Severity: "error", Kind: "secret_configured", Key: "api", Tier: "required", Message: "secret api is not configured"}
	results := map[string]any{
		MethodHello: HelloResult{Host: HostIdentity{Name: "h", Version: "1", Kind: "electron"}, ProtocolVersion: Version,
			Capabilities: map[string]Capability{"storage": {Version: "1.0.0", Enabled: true}}, Levels: []string{"catalog"}},
		MethodReset:        OK{OK: true},
		MethodConfigure:    OK{OK: true},
		MethodShutdownHint: OK{OK: true},
		MethodVerify: VerifyResult{OK: false, PackageHash: hashA, ManifestHash: hashB,
			Findings: []Finding{{Code: "package-hash-mismatch", Severity: "error", File: "APP.md", Message: "m"}}},
		MethodProject:   ProjectResult{OK: true, Projection: projection},
		MethodInstall:   InstallResult{OK: true, App: app},
		MethodUninstall: UninstallResult{OK: true, AppID: "a", DataRemoved: true},
		MethodDisable:   AppStateResult{OK: true, AppID: "a", State: StateDisabled},
		MethodEnable:    AppStateResult{OK: true, AppID: "a", State: StateInstalled},
		MethodUpdate:    UpdateResult{OK: true, App: app, PreviousVersion: "1.0.0"},
		MethodRollback:  RollbackResult{OK: true, App: app, RolledBackFrom: "1.1.0", Exported: []string{"/tmp/export/a.json"}},
		MethodMigrate:   MigrateResult{OK: true, AppID: "a", Applied: []string{"001_init.sql"}},
		MethodReadiness: ReadinessResult{OK: false, Status: StatusNeedsSetup, Checks: []ReadinessCheck{check},
			Tiers:        map[string][]ReadinessCheck{"required": {check}},
			SetupActions: []SetupAction{{Key: "api", Title: "Configure api", Kind: "configure-secret", Target: "api"}},
			Entries:      []EntryReadiness{{Key: "home", Status: StatusBlocked}}},
		MethodList: ListResult{Apps: []InstalledApp{app}, Retained: []RetainedData{{AppID: "b", Scopes: []string{"app"}}}},
		MethodReview: ReviewResult{OK: false, AppID: "a", Version: "1.0.0", Findings: []Finding{},
			Checks: []ReviewCheck{{Step: StepHashes, Status: StepPassed}, {Step: StepSignature, Status: StepFailed, Message: "m"}}},
		MethodRegistryList: RegistryListResult{Releases: []ListedRelease{{AppID: "a", Version: "1.0.0", PackageHash: hashA, Channel: "stable"}}},
		MethodLaunch:       LaunchResult{URL: "http://127.0.0.1:1/surface/x", RuntimeOrigin: "http://localhost:2"},
		MethodCenter:       CenterResult{URL: "http://127.0.0.1:1/center/x"},
		MethodObserve: ObserveResult{Calls: []BridgeCall{{Type: "capability:invoke", RequestID: "r", Capability: "lime.ui", Decision: DecisionDenied, Gate: GateAllowlist, Code: "X"}},
			Rejected: []RejectedMessage{{Type: "app:ready", Reason: RejectOrigin, Origin: "http://x"}}, Evidence: []EvidenceRecord{{Kind: "app-record"}, {Kind: "workflow-state", RunID: "run-1", State: "draft"}},
			Migrations: []MigrationRecord{{AppID: "a", Version: "1.0.0", Name: "001_init.sql", State: MigrationRefused, Reason: "ATTACH"}},
			Storage:    []StorageNamespace{{AppID: "a", Namespace: "a", Tables: []string{"notes"}}},
			HostState:  &HostState{Digest: hashA},
			Backends:   []BackendState{{Service: "probe", State: BackendRunning, PID: 42, Restarts: 1, Log: "started\n"}},
			Artifacts:  []ArtifactRecord{{ArtifactID: "art-1", AppID: "a", Version: "1.0.0", Type: "report", Workflow: "w", RunID: "run-1", State: "publish"}}},
		MethodSet:       OK{OK: true},
		MethodOverlay:   OK{OK: true},
		MethodSecret:    OK{OK: true},
		MethodKnowledge: KnowledgeResult{OK: true, Template: "project_knowledge", Pack: &pack},
		MethodFile:      FileResult{OK: true, Path: "notes.md"},
		MethodInvoke:    InvokeResult{Answer: json.RawMessage(`{"type":"host:response","requestId":"r","payload":{"taskId":"t"}}`)},
		MethodBackend:   BackendResult{Result: json.RawMessage(`{"pid": 42}`)},
		MethodEvals: EvalsResult{Evals: []EvalResult{{Key: "regression", Kind: "regression", Passed: false, Score: 0.5, Threshold: 1,
			Cases:      []EvalCase{{Key: "saves", Passed: true, Status: "completed"}, {Key: "refuses", Passed: false, Status: EvalRefused, Reason: "r"}},
			Provenance: map[string]any{"appName": "a", "appVersion": "1.0.0", "packageHash": hashA, "manifestHash": hashA, "standard": "agentapp", "standardVersion": "0.10.0"}}}},
	}
	params := map[string]any{
		MethodHello:        HelloParams{HarnessName: "agentapp-conformance", ProtocolVersion: Version},
		MethodReset:        nil,
		MethodShutdownHint: struct{}{},
		MethodConfigure: ConfigureParams{TenantID: "t", WorkspaceID: "w", UserID: "u", Clock: "2030-01-02T03:04:05Z",
			Secrets: map[string]string{"api": "canary"}, RegistryURL: "http://127.0.0.1:9/",
			Sigstore:      &SigstoreTrust{TrustedRoot: json.RawMessage(`{"mediaType": "x"}`), Issuer: "https://issuer.example.org"},
			ModelSettings: &ModelSettings{Profile: "balanced", Limits: map[string]int64{"maxOutputTokens": 4096}, ProviderKey: "canary", Routing: "canary"},
			Branding:      &Branding{Name: "OEM", ShellCopy: "Welcome", Tokens: map[string]string{"--lime-color-accent": "#123456"}},
			Billing:       &Billing{Plan: "team", Quota: QuotaExhausted, BlockedReason: "quota", Ledger: "canary", PaymentCredential: "canary"}},
		MethodVerify: PackageParams{Path: "/tmp/pkg", Release: &Release{PackageHash: hashA, SignatureBundle: json.RawMessage(`{"mediaType": "x"}`),
			Publisher: &Publisher{PublisherID: "p", Verified: true, VerifiedDomain: "p.example.org"}}},
		MethodProject:      PackageParams{Path: "/tmp/pkg"},
		MethodInstall:      InstallParams{Path: "/tmp/pkg", Consent: Consent{Granted: true, By: "user", Migrations: true}},
		MethodUninstall:    UninstallParams{AppID: "a", KeepData: true},
		MethodDisable:      AppIDParams{AppID: "a"},
		MethodEnable:       AppIDParams{AppID: "a"},
		MethodUpdate:       UpdateParams{AppID: "a", Path: "/tmp/pkg", Release: &Release{PackageHash: hashA}, Consent: Consent{Granted: true, By: "user"}},
		MethodRollback:     RollbackParams{AppID: "a", DownMigrations: true, ExportTo: "/tmp/export"},
		MethodMigrate:      MigrateParams{AppID: "a", Consent: Consent{Granted: true, By: "user"}},
		MethodReadiness:    ReadinessParams{AppID: "a", Entry: "home"},
		MethodList:         nil,
		MethodRegistryList: nil,
		MethodReview:       ReviewParams{Source: &Source{AppID: "a", Channel: "stable"}},
		MethodLaunch:       LaunchParams{AppID: "a", EntryKey: "main"},
		MethodCenter:       nil,
		MethodObserve:      ObserveParams{AppID: "a"},
		MethodInvoke:       InvokeParams{AppID: "a", EntryKey: "main", RequestID: "r", Capability: "lime.agent", Method: "startTask", Args: json.RawMessage(`{"input":"x"}`)},
		MethodOverlay:      OverlayParams{AppID: "a", Key: "tenant_defaults", Scope: ScopeTenant, Values: map[string]json.RawMessage{"tone": json.RawMessage(`"formal"`)}},
		MethodSecret:       SecretParams{AppID: "a", Key: "provider_api_key", Value: "canary-1"},
		MethodKnowledge:    KnowledgeParams{AppID: "a", Template: "project_knowledge", Pack: "pack-1"},
		MethodFile:         FileParams{AppID: "a", Path: "notes.md", Content: &content},
		MethodBackend:      BackendParams{AppID: "a", Service: "probe", Method: "probe/report", Params: json.RawMessage(`{"paths": []}`)},
		MethodEvals:        AppIDParams{AppID: "a"},
		MethodSet:          SetParams{Theme: &Theme{Mode: "dark", Tokens: map[string]string{"--x": "#000"}}, Visibility: "hidden", Locale: "en-US"},
	}
	for _, m := range SchemaMethods() {
		r, ok := results[m]
		if !ok {
			t.Fatalf("test lacks a result for %s", m)
		}
		if err := s.ValidateResult(m, marshal(t, r)); err != nil {
			t.Errorf("%s result: %v", m, err)
		}
		var raw json.RawMessage
		if p := params[m]; p != nil {
			raw = marshal(t, p)
		}
		if err := s.ValidateParams(m, raw); err != nil {
			t.Errorf("%s params: %v", m, err)
		}
	}
	used := map[string]bool{defsFile: true}
	for _, m := range SchemaMethods() {
		used[ResultSchemaFile(m)], used[ParamsSchemaFile(m)] = true, true
	}
	files, err := fs.ReadDir(SchemaFS(), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !used[f.Name()] {
			t.Errorf("embedded schema %s belongs to no method", f.Name())
		}
	}
	if len(files) != len(used) {
		t.Errorf("%d schema files embedded, %d expected", len(files), len(used))
	}
}

func TestSchemaErrorsNameThePointer(t *testing.T) {
	s := mustLoad(t)
	cases := []struct {
		method, part, raw, want string
	}{
		{MethodHello, "result", `{"host":{"name":"h","version":"1","kind":"toaster"},"protocolVersion":"1","capabilities":{},"levels":[]}`,
			`/host/kind: value must be one of 'electron', 'tauri', 'runtime-backed', 'web', 'reference'`},
		{MethodHello, "result", `{"host":{"name":"","version":"1","kind":"web"},"protocolVersion":"1","capabilities":{},"levels":[]}`,
			"/host/name: minLength: got 0, want 1"},
		{MethodHello, "result", `{"host":{"name":"h","version":"1","kind":"web"},"protocolVersion":"0","capabilities":{},"levels":[]}`,
			`/protocolVersion: value must be '1'`},
		{MethodHello, "result", `{"host":{"name":"h","version":"1","kind":"web"},"protocolVersion":"1","capabilities":{"x":{"version":"1"}},"levels":["a",3]}`,
			`/capabilities/x: missing property 'enabled' (and 1 more)`},
		{MethodReadiness, "result", `{"ok":true,"status":"ok","checks":[]}`,
			`/status: value must be one of 'ready', 'ready-degraded', 'needs-setup', 'blocked', 'unknown', 'failed', 'disabled'`},
		{MethodReadiness, "result", `{"ok":true,"status":"ready","checks":[{"severity":"fatal","kind":"k","key":"x","message":"m"}]}`,
			`/checks/0/severity: value must be one of 'info', 'warning', 'error'`},
		{MethodReadiness, "result", `{"ok":true,"status":"ready","checks":null}`, "/checks: got null, want array"},
		{MethodProject, "result", `{"ok":true,"projection":null}`, "/projection: got null, want object"},
		{MethodProject, "result", `{"ok":true,"projection":{"app":{},"entries":[]}}`, "/projection: missing property 'provenance'"},
		{MethodProject, "result", `{"ok":true,"projection":{"app":{},"entries":[],"provenance":{"appName":"a","appVersion":"1","packageHash":"","manifestHash":"","standard":"x","standardVersion":"0.10.0"}}}`,
			`/projection/provenance/standard: value must be 'agentapp'`},
		{MethodList, "result", `[]`, "(root): got array, want object"},
		{MethodList, "result", `{"apps":[],"retained":[]} x`, "(root): not JSON: invalid character after top-level value"},
		{MethodInstall, "params", `{"path":"relative/pkg","consent":{"granted":true}}`, "/path: '"},
		{MethodInstall, "params", `{"path":"/p"}`, "(root): missing property 'consent'"},
		{MethodConfigure, "params", `{"tenantId":"t","workspaceId":"w","userId":"u","clock":"yesterday"}`, "/clock: 'yesterday' is not valid date-time"},
		{MethodReadiness, "params", `{"entry":"home"}`, "(root): missing property"},
		{MethodHello, "params", ``, "(root): got null, want object"},
		{MethodUninstall, "params", `{"appId":"a","keepData":"yes"}`, "/keepData: got string, want boolean"},
	}
	for _, c := range cases {
		var err error
		if c.part == "result" {
			err = s.ValidateResult(c.method, json.RawMessage(c.raw))
		} else {
			err = s.ValidateParams(c.method, json.RawMessage(c.raw))
		}
		if err == nil {
			t.Errorf("%s %s %s: accepted", c.method, c.part, c.raw)
			continue
		}
		var se *SchemaError
		if !errors.As(err, &se) || se.Method != c.method || se.Part != c.part {
			t.Errorf("%s %s: error %#v is not a SchemaError for it", c.method, c.part, err)
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s %s %s:\n got  %s\n want %s...", c.method, c.part, c.raw, err, c.want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: message spans lines: %q", c.method, err)
		}
	}
}

func TestUnknownMethodsHaveNoSchema(t *testing.T) {
	s := mustLoad(t)
	for _, m := range append([]string{"no/such"}, ReservedMethods()...) {
		if _, ok := s.Result(m); ok {
			t.Errorf("%s has a result schema", m)
		}
		if _, ok := ResultSchema(m); ok {
			t.Errorf("ResultSchema(%s) found one", m)
		}
		if err := s.ValidateResult(m, json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), m) {
			t.Errorf("ValidateResult(%s) = %v, want an error naming the method", m, err)
		}
	}
	for _, m := range SchemaMethods() {
		if _, ok := ResultSchema(m); !ok {
			t.Errorf("ResultSchema(%s) missing", m)
		}
		if _, ok := ParamsSchema(m); !ok {
			t.Errorf("ParamsSchema(%s) missing", m)
		}
	}
}

// Unknown members are accepted: v1 grows only by optional members.
func TestUnknownMembersAccepted(t *testing.T) {
	s := mustLoad(t)
	raw := `{"host":{"name":"h","version":"1","kind":"tauri","build":"x"},"protocolVersion":"1","capabilities":{},"levels":[],"extra":{"a":1}}`
	if err := s.ValidateResult(MethodHello, json.RawMessage(raw)); err != nil {
		t.Fatal(err)
	}
}

func BenchmarkValidateReadiness(b *testing.B) {
	s := mustLoad(b)
	raw := json.RawMessage(`{"ok":false,"status":"needs-setup","checks":[{"severity":"error","kind":"secret_configured","key":"api","tier":"required","message":"m"}],"setupActions":[{"key":"api","title":"t","kind":"configure-secret","target":"api"}]}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.ValidateResult(MethodReadiness, raw); err != nil {
			b.Fatal(err)
		}
	}
}
