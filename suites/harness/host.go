package harness

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/agentapp/conformance/drivers/agentpkg"
	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/protocol"
)

// Canaries are random values planted in the host as secrets and session
// tokens. None may ever appear in anything the host answers.
type Canaries struct {
	ProviderKey  string // secret provider_api_key
	OtherSecret  string // secret unrelated_token
	SessionToken string // session token "cloud"
}

// NewCanaries draws fresh canary values and registers them for redaction.
func NewCanaries(red *control.Redactor) (Canaries, error) {
	c := Canaries{}
	for _, p := range []*string{&c.ProviderKey, &c.OtherSecret, &c.SessionToken} {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return c, fmt.Errorf("drawing canary values: %w", err)
		}
		*p = "canary-" + hex.EncodeToString(b)
	}
	if red != nil {
		// Every form a leak may take is redacted from what the report
		// publishes, not only the value as it is.
		for v, label := range map[string]string{c.ProviderKey: "canary-provider-key",
			c.OtherSecret: "canary-other-secret", c.SessionToken: "canary-session-token"} {
			for _, f := range canaryForms(v) {
				red.Add(f.text, label)
			}
		}
	}
	return c, nil
}

// named pairs each canary with what it stands for, for failure messages
// that must never quote the value itself.
func (c Canaries) named() map[string]string {
	return map[string]string{
		"the secret provider_api_key": c.ProviderKey,
		"the secret unrelated_token":  c.OtherSecret,
		"the session token cloud":     c.SessionToken,
	}
}

// ExpectNoCanary fails the spec when raw carries any planted secret or
// session-token value. The message names the secret, never its value, so
// the report does not publish it. A leak is evidence whatever phase the
// spec is in: it always fails.
func (tc *TestContext) ExpectNoCanary(what string, raw []byte) {
	ginkgo.GinkgoHelper()
	var leaked []string
	for name, v := range tc.Config.Canaries.named() {
		if form := FindCanary(raw, v); form != "" {
			leaked = append(leaked, name+" ("+form+")")
		}
	}
	if len(leaked) > 0 {
		sort.Strings(leaked)
		prev := tc.phase
		tc.phase = judging
		defer func() { tc.phase = prev }()
		tc.Failf("%s carries the value of %s, which the host holds and must never reveal",
			what, strings.Join(leaked, " and "))
	}
}

// MinHostPath is the shortest data path the harness looks for: "/" or
// "/tmp" would be found in any text.
const MinHostPath = 8

// ExpectNoHostPath fails the spec when raw carries one of the data folders
// the host names in conformance/hello (dataPaths), in any form a secret is
// looked for: an app must not see the host's filesystem internals (spec
// 002, Desktop P2). A host that names none has its paths unsearched, and
// the report says so.
func (tc *TestContext) ExpectNoHostPath(what string, raw []byte) {
	ginkgo.GinkgoHelper()
	var paths []string
	for _, p := range tc.Host().Hello().DataPaths {
		if p = strings.TrimRight(p, `/\`); len(p) >= MinHostPath && (strings.HasPrefix(p, "/") || filepath.IsAbs(p)) {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		tc.Reading("Host data paths", "the host names no data folder in conformance/hello (dataPaths): host paths were not looked for")
		return
	}
	for i, p := range paths {
		if form := FindCanary(raw, p); form != "" {
			prev := tc.phase
			tc.phase = judging
			defer func() { tc.phase = prev }()
			tc.Failf("%s carries the host's data folder (dataPaths[%d], %s), a filesystem internal the app must not see", what, i, form)
		}
	}
}

// canaryForm is one way a host may carry a secret value.
type canaryForm struct{ name, text string }

// canaryForms lists the forms of v a leak may take: as it is, hex-encoded,
// base64-encoded (standard or URL alphabet, at each of the three alignments
// a value can take inside a longer encoded text: only the characters that
// depend on v alone) and URL-escaped.
func canaryForms(v string) []canaryForm {
	forms := []canaryForm{
		{"as it is", v},
		{"hex-encoded", hex.EncodeToString([]byte(v))},
		{"hex-encoded", strings.ToUpper(hex.EncodeToString([]byte(v)))},
		{"URL-escaped", url.QueryEscape(v)},
	}
	for pad := 0; pad < 3; pad++ {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			e := enc.EncodeToString(append(make([]byte, pad), v...))
			lead := (pad*8 + 5) / 6
			forms = append(forms, canaryForm{"base64-encoded", e[lead : len(e)-4]})
		}
	}
	return forms
}

// FindCanary says in which form raw carries the secret value v; "" when
// in none.
func FindCanary(raw []byte, v string) string {
	if v == "" {
		return ""
	}
	for _, f := range canaryForms(v) {
		if strings.Contains(string(raw), f.text) {
			return f.name
		}
	}
	return ""
}

// Fixed ids the harness configures; the clock is fixed so that lifecycle
// dates in fixtures read the same on every run.
const (
	TenantID    = "tenant-conformance"
	WorkspaceID = "workspace-conformance"
	UserID      = "user-conformance"
	// DefaultClock sits before every lifecycle date in the fixtures.
	DefaultClock = "2026-06-01T00:00:00Z"
)

// DefaultConfigure is the host/configure every spec starts from: an
// unrelated secret and a session token are held, no app secret is.
func (tc *TestContext) DefaultConfigure() protocol.ConfigureParams {
	return protocol.ConfigureParams{
		Profile:       "desktop",
		TenantID:      TenantID,
		WorkspaceID:   WorkspaceID,
		UserID:        UserID,
		Secrets:       map[string]string{"unrelated_token": tc.Config.Canaries.OtherSecret},
		SessionTokens: map[string]string{"cloud": tc.Config.Canaries.SessionToken},
		Clock:         DefaultClock,
		RegistryURL:   tc.registryURL(),
		Timeouts:      PeerTimeouts(),
	}
}

// PeerTimeouts are the waits on the harness's peers every configuration
// offers the host (docs/host-control-protocol.md, "Peer timeouts"): short
// enough that a spec watching a host wait out a silent App Server,
// registry or revocation service takes a second, not the host's own
// minute, and long enough that a loaded machine's loopback answers in time.
// A host that keeps its own waits is judged the same, only slower.
func PeerTimeouts() *protocol.PeerTimeouts {
	return &protocol.PeerTimeouts{AppServerMs: 1000, RegistryMs: 500, RevocationMs: 500}
}

// registryURL is the address of the registry the harness plays ("" in a
// dry run).
func (tc *TestContext) registryURL() string {
	if tc.registry == nil {
		return ""
	}
	return tc.registry.URL()
}

// Configure sends host/configure; a host that refuses it blocks the spec.
func (tc *TestContext) Configure(p protocol.ConfigureParams) {
	ginkgo.GinkgoHelper()
	tc.Precondition("host/configure is accepted", func() {
		tc.MustCall(protocol.MethodConfigure, p, &protocol.OK{})
	})
}

// WithSecret returns the default configuration plus the provider_api_key secret.
func (tc *TestContext) WithSecret() protocol.ConfigureParams {
	p := tc.DefaultConfigure()
	p.Secrets["provider_api_key"] = tc.Config.Canaries.ProviderKey
	return p
}

// Call sends one request and decodes the result into result (a
// *json.RawMessage keeps the answer as sent, and reads all of it). A schema
// violation is an error only where result's type reads
// (protocol.ReadsOf); see CallReading.
func (tc *TestContext) Call(method string, params, result any) error {
	return tc.CallReading(method, params, result, nil)
}

// CallReading is Call for a check that reads only the members reads names
// (nil: what result's type decodes). A schema violation where the check
// reads leaves no usable answer (a KindSchema error); one elsewhere does
// not stop the check. Either way the violation is logged for
// PROTO-RESULT-SCHEMA, the one requirement that reports it.
func (tc *TestContext) CallReading(method string, params, result any, reads protocol.Reads) error {
	if tc.client == nil {
		return errors.New("no connection to the host")
	}
	unread, err := tc.client.CallReading(tc.ctx(), method, params, result, reads)
	vs := unread
	var se *protocol.SchemaError
	if errors.As(err, &se) {
		vs = append(vs, se.Violations...)
	}
	if len(vs) > 0 {
		tc.schemas.observe(method, ginkgo.CurrentSpecReport().FullText(), vs)
	}
	return err
}

// ExpectNoCanaryIn calls method and fails the spec when anything the host
// answers carries a planted secret: the result as sent, even one that fails
// its schema, or the message and data of an error answer. The search needs
// no parsed value, so an answer of the wrong shape is still searched; only
// no answer at all is an error.
func (tc *TestContext) ExpectNoCanaryIn(what, method string, params any) json.RawMessage {
	ginkgo.GinkgoHelper()
	var raw json.RawMessage
	err := tc.Call(method, params, &raw)
	tc.ExpectNoCanary(what, raw)
	var he *control.HostError
	switch {
	case errors.As(err, &he):
		tc.ExpectNoCanary("the error answer to "+what, []byte(he.Message+" "+string(he.Data)))
	case IsSchemaError(err):
	case err != nil:
		tc.Errorf("no usable answer to %s: %v", method, err)
	}
	return raw
}

// ExpectNoCanaryInResult is ExpectNoCanaryIn for a must-not that needs
// evidence: the host must answer with a result, where what it holds could
// show. An error answer is still searched (a leak there is a leak), then
// the spec is blocked, naming the answer: a host that projected or judged
// nothing (-32006 included) was not seen holding back anything.
func (tc *TestContext) ExpectNoCanaryInResult(what, method string, params any) {
	ginkgo.GinkgoHelper()
	var raw json.RawMessage
	err := tc.Call(method, params, &raw)
	if he, ok := HostError(err); ok {
		tc.ExpectNoCanary("the error answer to "+what, []byte(he.Message+" "+string(he.Data)))
	}
	if err != nil && !IsSchemaError(err) {
		tc.Precondition(what+" is answered with a result", func() { tc.FailCall(method, err) })
	}
	tc.ExpectNoCanary(what, raw)
}

// ExpectHoldsSecret is the evidence a must-not on the configured secret
// needs: with WithSecret configured, secret-required-app (which requires
// provider_api_key) is launchable, so the host holds the value the spec
// then looks for. A host that ignores the secret cannot be seen keeping it
// back: blocked.
func (tc *TestContext) ExpectHoldsSecret() {
	ginkgo.GinkgoHelper()
	tc.Precondition("the host holds the configured secret provider_api_key (secret-required-app is launchable with it)", func() {
		if r, raw := tc.Readiness(tc.Fixture("secret-required-app"), ""); !IsLaunchable(r.Status) {
			tc.Failf("app/readiness of secret-required-app is %q with provider_api_key configured; the answer: %s", r.Status, Excerpt(raw))
		}
	})
}

// MustCall sends one request and ends the spec, naming the method, when the
// host does not answer with a usable result (failCall decides how).
func (tc *TestContext) MustCall(method string, params, result any) {
	ginkgo.GinkgoHelper()
	if err := tc.Call(method, params, result); err != nil {
		tc.FailCall(method, err)
	}
}

// HostErrorCode returns the JSON-RPC error code of err when the host
// answered with an error; when the host gave no usable answer at all, the
// spec ends as error.
func (tc *TestContext) HostErrorCode(method string, err error) (int64, bool) {
	ginkgo.GinkgoHelper()
	if err == nil {
		return 0, false
	}
	var he *control.HostError
	if errors.As(err, &he) {
		return he.Code, true
	}
	tc.Errorf("no usable answer to %s: %v", method, err)
	return 0, false
}

// CallTimedOut reports whether err is the harness's call timeout: the
// host sent no answer in time (the session is then closed, and the next
// call reconnects).
func CallTimedOut(err error) bool {
	var te *control.TransportError
	return errors.As(err, &te) && te.Kind == control.KindTimeout
}

// RefusalError returns the host's error answer to a call the spec expects
// it to refuse, or false when the host gave a result. No usable answer is
// an error, and -32006 (the host cannot take this package) blocks the spec:
// neither is a refusal (docs/host-control-protocol.md, "What one answer costs").
func (tc *TestContext) RefusalError(method string, err error) (*control.HostError, bool) {
	ginkgo.GinkgoHelper()
	if err == nil {
		return nil, false
	}
	var he *control.HostError
	if !errors.As(err, &he) {
		tc.Errorf("no usable answer to %s: %v", method, err)
	}
	if he.Code == protocol.CodeUnsupported {
		tc.Blockedf("the host cannot do %s here (-32006 unsupported): %s", method, HostErrorText(he))
	}
	return he, true
}

// Verify runs package/verify and returns the verdict.
func (tc *TestContext) Verify(dir string, rel *protocol.Release) protocol.VerifyResult {
	ginkgo.GinkgoHelper()
	var res protocol.VerifyResult
	tc.MustCall(protocol.MethodVerify, protocol.PackageParams{Path: dir, Release: rel}, &res)
	return res
}

// ExpectVerifies is the positive control of a refusal check: the untouched
// package, in this session, verifies. When it does not, the spec is blocked.
func (tc *TestContext) ExpectVerifies(dir string, rel *protocol.Release) {
	ginkgo.GinkgoHelper()
	tc.Precondition("the untouched package verifies", func() {
		v := tc.Verify(dir, rel)
		if !v.OK {
			tc.Blockedf("the untouched package %s did not verify: %s", filepath.Base(dir), findingsText(v.Findings))
		}
	})
}

// ExpectAccepted fails the spec when the host refuses a package the
// standard allows (what names what the spec set in it): the other side of
// a boundary, judged, not a positive control.
func (tc *TestContext) ExpectAccepted(dir, what string) {
	ginkgo.GinkgoHelper()
	if r := tc.VerifyRefusal(dir, nil); r.Refused {
		tc.Failf("the host refused a package with %s, which the standard allows: %s", what, r)
	}
}

// Refusal is the host's answer to a package the spec spoiled.
type Refusal struct {
	Refused  bool
	Code     int64 // the JSON-RPC error code of an error-form refusal
	Message  string
	Findings []protocol.Finding
}

// String renders what the host said, for failure messages.
func (r Refusal) String() string {
	s := findingsText(r.Findings)
	if r.Code != 0 {
		s = fmt.Sprintf("error %d %s; %s", r.Code, r.Message, s)
	}
	return s
}

// Planted is what a spec planted in a package. A refusal counts only when
// it names it: a finding with one of the codes, or one naming the file and
// field (for an error answer without findings: its message naming them);
// with Name set, that finding must also name it (in its field or message).
type Planted struct {
	What  string   // for messages: "the symlink assets/leak.txt"
	Codes []string // finding codes that name it
	File  string   // the file, relative to the package root
	Field string   // the field, or part of it; "" for the file alone
	Name  string   // a name the finding must carry too, e.g. "lime.agent"
}

// NamedBy reports whether the refusal names what was planted.
func (p Planted) NamedBy(r Refusal) bool {
	for _, f := range r.Findings {
		if p.locates(f) && (p.Name == "" || strings.Contains(f.Field+" "+f.Message, p.Name)) {
			return true
		}
	}
	if len(r.Findings) == 0 && r.Code != 0 {
		for _, part := range []string{p.File, p.Field, p.Name} {
			if !strings.Contains(r.Message, part) {
				return false
			}
		}
		return p.File != "" || p.Field != "" || p.Name != ""
	}
	return false
}

// locates reports whether finding f points at what was planted.
func (p Planted) locates(f protocol.Finding) bool {
	switch {
	case slices.Contains(p.Codes, f.Code):
		return true
	case p.File != "":
		return filepath.ToSlash(f.File) == p.File && (p.Field == "" || strings.Contains(f.Field, p.Field))
	case p.Field != "":
		return strings.Contains(f.Field, p.Field)
	}
	return false
}

// VerifyRefusal runs package/verify on a spoiled package and returns the
// host's answer: refused as a verdict (ok false) or with a package-invalid
// or verification-failed error, findings from error.data.
func (tc *TestContext) VerifyRefusal(dir string, rel *protocol.Release) Refusal {
	ginkgo.GinkgoHelper()
	var res protocol.VerifyResult
	err := tc.Call(protocol.MethodVerify, protocol.PackageParams{Path: dir, Release: rel}, &res)
	if he, ok := tc.RefusalError(protocol.MethodVerify, err); ok {
		refused := he.Code == protocol.CodePackageInvalid || he.Code == protocol.CodeVerificationFailed
		return Refusal{Refused: refused, Code: he.Code, Message: he.Message, Findings: FindingsOfError(he)}
	}
	return Refusal{Refused: !res.OK, Findings: res.Findings}
}

// ExpectRefused fails the spec unless the host refused the spoiled package
// naming what the spec planted: any refusal is not enough.
func (tc *TestContext) ExpectRefused(r Refusal, p Planted) {
	ginkgo.GinkgoHelper()
	if !r.Refused && r.Code != 0 {
		tc.Failf("the host answered the package with %s planted in it with an error that is no refusal of it (the protocol's refusal codes are -32001 and -32002): %s", p.What, r)
	}
	if !r.Refused {
		tc.Failf("the host accepted the package with %s planted in it; it answered: %s", p.What, r)
	}
	if !p.NamedBy(r) {
		tc.Failf("the host refused the package, but not for %s, which the spec planted: it named %s; expected a finding %s",
			p.What, r, p.expectation())
	}
}

func (p Planted) expectation() string {
	var parts []string
	if len(p.Codes) > 0 {
		parts = append(parts, "with code "+strings.Join(p.Codes, " or "))
	}
	if p.File != "" || p.Field != "" {
		loc := strings.TrimSpace(p.File + " " + p.Field)
		parts = append(parts, "naming "+loc)
	}
	s := strings.Join(parts, ", or ")
	if p.Name != "" {
		s += " that names " + p.Name
	}
	return s
}

// FindingsOfError reads the findings an error answer carries in error.data.
func FindingsOfError(he *control.HostError) []protocol.Finding {
	if he == nil || len(he.Data) == 0 {
		return nil
	}
	var data protocol.ErrorData
	if json.Unmarshal(he.Data, &data) != nil {
		return nil
	}
	return data.Findings
}

// Project runs package/project on a valid package and returns the raw
// projection. A host that will not project it leaves nothing to judge: the
// spec is blocked, never failed, whatever clause it checks.
//
// The spec reads the projection members named in reads (top-level keys,
// "app", "entries", ...; none: the projection only as bytes): a schema
// violation in them leaves no usable answer (error), one elsewhere is
// left to PROTO-RESULT-SCHEMA.
func (tc *TestContext) Project(dir string, reads ...string) json.RawMessage {
	ginkgo.GinkgoHelper()
	var res protocol.ProjectResult
	rs := protocol.Reads{"/ok", "/findings", "/projection/"}
	for _, m := range reads {
		rs = append(rs, "/projection/"+m)
	}
	tc.Precondition("the host projects the valid package "+filepath.Base(dir), func() {
		if err := tc.CallReading(protocol.MethodProject, protocol.PackageParams{Path: dir}, &res, rs); err != nil {
			tc.FailCall(protocol.MethodProject, err)
		}
		if !res.OK {
			tc.Blockedf("package/project refused it: %s", findingsText(res.Findings))
		}
	})
	return res.Projection
}

// Readiness runs app/readiness for a package folder.
func (tc *TestContext) Readiness(dir, entry string) (protocol.ReadinessResult, json.RawMessage) {
	ginkgo.GinkgoHelper()
	return tc.ReadinessOf(protocol.ReadinessParams{Path: dir, Entry: entry})
}

// ReadinessOf runs app/readiness and returns the answer and its raw form.
func (tc *TestContext) ReadinessOf(p protocol.ReadinessParams) (protocol.ReadinessResult, json.RawMessage) {
	ginkgo.GinkgoHelper()
	var raw json.RawMessage
	// The check reads what ReadinessResult decodes; the raw answer is
	// only quoted and searched.
	if err := tc.CallReading(protocol.MethodReadiness, p, &raw, protocol.ReadsOf(&protocol.ReadinessResult{})); err != nil {
		tc.FailCall(protocol.MethodReadiness, err)
	}
	var res protocol.ReadinessResult
	if err := json.Unmarshal(raw, &res); err != nil {
		tc.Errorf("the app/readiness answer does not decode: %v", err)
	}
	return res, raw
}

// ExpectReady is the positive control of a readiness check: the package
// with every check satisfied is ready (or the statuses allowed) in this
// session. When it is not, the spec is blocked.
func (tc *TestContext) ExpectReady(what, dir, entry string, allowed ...string) {
	ginkgo.GinkgoHelper()
	if len(allowed) == 0 {
		allowed = []string{protocol.StatusReady}
	}
	tc.Precondition(what, func() {
		r, raw := tc.Readiness(dir, entry)
		if !slices.Contains(allowed, r.Status) {
			tc.Blockedf("status %q, expected %s: %s", r.Status, strings.Join(allowed, " or "), raw)
		}
	})
}

// List runs app/list.
func (tc *TestContext) List() protocol.ListResult {
	ginkgo.GinkgoHelper()
	var res protocol.ListResult
	tc.MustCall(protocol.MethodList, struct{}{}, &res)
	return res
}

// ListedApp returns app/list's row of appID, if it lists one.
func (tc *TestContext) ListedApp(appID string) (protocol.InstalledApp, bool) {
	ginkgo.GinkgoHelper()
	for _, a := range tc.List().Apps {
		if a.AppID == appID {
			return a, true
		}
	}
	return protocol.InstalledApp{}, false
}

// AppReadiness runs app/readiness for an installed app.
func (tc *TestContext) AppReadiness(appID string) protocol.ReadinessResult {
	ginkgo.GinkgoHelper()
	var res protocol.ReadinessResult
	tc.MustCall(protocol.MethodReadiness, protocol.ReadinessParams{AppID: appID}, &res)
	return res
}

// ExpectAppReady is the positive control that an installed app is ready.
func (tc *TestContext) ExpectAppReady(appID string) {
	ginkgo.GinkgoHelper()
	tc.Precondition("the installed app "+appID+" is ready", func() {
		if r := tc.AppReadiness(appID); r.Status != protocol.StatusReady {
			tc.Blockedf("app/readiness of %s is %q, not ready", appID, r.Status)
		}
	})
}

// TryInstall asks for an install, with the user's consent or without any,
// tracks whatever the host installed for cleanup, and returns its answer.
func (tc *TestContext) TryInstall(dir string, rel *protocol.Release, consent bool) (protocol.InstalledApp, error) {
	ginkgo.GinkgoHelper()
	c := protocol.Consent{Granted: consent, Migrations: consent} // an ordinary install approves the migrations its review shows
	if consent {
		c.By = "user"
	}
	var res protocol.InstallResult
	err := tc.Call(protocol.MethodInstall, protocol.InstallParams{Path: dir, Release: rel, Consent: c}, &res)
	tc.resources.TrackApp(res.App.AppID)
	return res.App, err
}

// Install installs a package with consent, as a precondition: a host that
// refuses blocks the spec.
func (tc *TestContext) Install(dir string, rel *protocol.Release) protocol.InstalledApp {
	ginkgo.GinkgoHelper()
	var app protocol.InstalledApp
	tc.Precondition("the package "+filepath.Base(dir)+" installs", func() {
		var err error
		app, err = tc.TryInstall(dir, rel, true)
		if err != nil {
			tc.FailCall(protocol.MethodInstall, err)
		}
	})
	return app
}

// Uninstall removes an app.
func (tc *TestContext) Uninstall(appID string, keepData bool) protocol.UninstallResult {
	ginkgo.GinkgoHelper()
	var res protocol.UninstallResult
	tc.MustCall(protocol.MethodUninstall, protocol.UninstallParams{AppID: appID, KeepData: keepData}, &res)
	return res
}

// ExpectGone fails the spec unless nothing of an app uninstalled without
// keepData is reachable through the protocol: app/list does not show it,
// and app/readiness and app/uninstall of its id are answered -32004 (app
// not found), as docs/host-control-protocol.md names for an id that is
// not installed.
func (tc *TestContext) ExpectGone(appID string) {
	ginkgo.GinkgoHelper()
	if _, listed := FindApp(tc.List(), appID); listed {
		tc.Failf("app/list still shows %s after its uninstall", appID)
	}
	for _, c := range []struct {
		method string
		params any
	}{
		{protocol.MethodReadiness, protocol.ReadinessParams{AppID: appID}},
		{protocol.MethodUninstall, protocol.UninstallParams{AppID: appID}},
	} {
		var raw json.RawMessage
		code, isHostErr := tc.HostErrorCode(c.method, tc.Call(c.method, c.params, &raw))
		if !isHostErr {
			tc.Failf("%s of %s, uninstalled, was answered as if the app were installed; the answer: %s", c.method, appID, Excerpt(raw))
		}
		if code != protocol.CodeAppNotFound {
			tc.Failf("%s of %s, uninstalled, was answered with error %d; the protocol names %d (app not found)",
				c.method, appID, code, protocol.CodeAppNotFound)
		}
	}
}

// AppCall is one call naming an installed app.
type AppCall struct {
	Method string
	Params any
}

// AcceptedAppCalls makes the calls that only an installed app answers
// (docs/host-control-protocol.md: -32004 for an app that is not
// installed), each naming what the package at dir declares: a read of a
// workspace file, a read of its first knowledge template, a binding of its
// first secret slot, an empty overlay of its first overlay template, a
// disable and an enable, a readiness by its id; among the methods the host
// announces. It returns those the host answered with
// a result: ExpectGone's positive control, on the same app in the same
// session.
func (tc *TestContext) AcceptedAppCalls(appID, dir string) []AppCall {
	ginkgo.GinkgoHelper()
	p, err := agentpkg.Load(dir, agentpkg.LoadOptions{Limits: agentpkg.DefaultLimits()})
	if err != nil {
		tc.Errorf("fixture sanity: loading %s: %v", dir, err)
	}
	first := func(list string, fields ...string) []string {
		items, _ := p.Manifest[list].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			var out []string
			for _, f := range fields {
				v, _ := m[f].(string)
				out = append(out, v)
			}
			if out[0] != "" {
				return out
			}
		}
		return nil
	}
	calls := []AppCall{{protocol.MethodFile, protocol.FileParams{AppID: appID, Path: "residue.txt"}}}
	if k := first("knowledgeTemplates", "key"); k != nil {
		calls = append(calls, AppCall{protocol.MethodKnowledge, protocol.KnowledgeParams{AppID: appID, Template: k[0]}})
	}
	if k := first("secrets", "key"); k != nil {
		calls = append(calls, AppCall{protocol.MethodSecret, protocol.SecretParams{AppID: appID, Key: k[0], Value: Nonce("residue")}})
	}
	if k := first("overlayTemplates", "key", "scope"); k != nil {
		calls = append(calls, AppCall{protocol.MethodOverlay, protocol.OverlayParams{AppID: appID, Key: k[0], Scope: k[1], Values: map[string]json.RawMessage{}}})
	}
	// The app's state (app/disable then app/enable, which leaves it as it
	// was) and its readiness by id: each answers -32004 for an app that is
	// not installed, one whose data is retained included.
	calls = append(calls, AppCall{protocol.MethodDisable, protocol.AppIDParams{AppID: appID}},
		AppCall{protocol.MethodEnable, protocol.AppIDParams{AppID: appID}},
		AppCall{protocol.MethodReadiness, protocol.ReadinessParams{AppID: appID}})
	var accepted []AppCall
	for _, c := range calls {
		if !slices.Contains(tc.Host().Hello().Methods, c.Method) {
			continue
		}
		if _, isHostErr := tc.HostErrorCode(c.Method, tc.Call(c.Method, c.Params, &json.RawMessage{})); !isHostErr {
			accepted = append(accepted, c)
		}
	}
	return accepted
}

// ExpectCallsRefused fails the spec when a call the host took for the
// installed app (AcceptedAppCalls) is still answered with a result once
// the app is uninstalled: a registration left behind. Any error answer
// will do: a host may check the params before it looks the app up.
func (tc *TestContext) ExpectCallsRefused(appID string, calls []AppCall) {
	ginkgo.GinkgoHelper()
	var leftover []string
	for _, c := range calls {
		var raw json.RawMessage
		if _, isHostErr := tc.HostErrorCode(c.Method, tc.Call(c.Method, c.Params, &raw)); !isHostErr {
			leftover = append(leftover, fmt.Sprintf("%s (answered %s)", c.Method, Excerpt(raw)))
		}
	}
	if len(leftover) > 0 {
		tc.Failf("%s, uninstalled, is still taken as installed by %s, which it took before its uninstall", appID, strings.Join(leftover, "; "))
	}
}

// FindApp returns the row of app/list for appID.
func FindApp(l protocol.ListResult, appID string) (protocol.InstalledApp, bool) {
	if i := AppRow(l, appID); i >= 0 {
		return l.Apps[i], true
	}
	return protocol.InstalledApp{}, false
}

// AppRow is the index of appID's row in app/list's apps (for a message's
// JSON pointer), -1 when it has none.
func AppRow(l protocol.ListResult, appID string) int {
	for i, a := range l.Apps {
		if a.AppID == appID {
			return i
		}
	}
	return -1
}

// FindRetained returns the retained-data row for appID.
func FindRetained(l protocol.ListResult, appID string) (protocol.RetainedData, bool) {
	for _, r := range l.Retained {
		if r.AppID == appID {
			return r, true
		}
	}
	return protocol.RetainedData{}, false
}

func findingsText(fs []protocol.Finding) string {
	if len(fs) == 0 {
		return "no findings"
	}
	parts := make([]string, 0, len(fs))
	for _, f := range fs {
		loc := f.File
		if f.Field != "" {
			loc += " " + f.Field
		}
		parts = append(parts, fmt.Sprintf("%s %s (%s): %s", f.Severity, f.Code, strings.TrimSpace(loc), f.Message))
	}
	return strings.Join(parts, "; ")
}
