package suites

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/onsi/ginkgo/v2"

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
		red.Add(c.ProviderKey, "canary-provider-key")
		red.Add(c.OtherSecret, "canary-other-secret")
		red.Add(c.SessionToken, "canary-session-token")
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
// the report does not publish it.
func (tc *TestContext) ExpectNoCanary(what string, raw []byte) {
	ginkgo.GinkgoHelper()
	var leaked []string
	for name, v := range tc.Config.Canaries.named() {
		if v != "" && strings.Contains(string(raw), v) {
			leaked = append(leaked, name)
		}
	}
	if len(leaked) > 0 {
		sort.Strings(leaked)
		ginkgo.Fail(fmt.Sprintf("%s carries the value of %s, which the host holds and must never reveal",
			what, strings.Join(leaked, " and ")))
	}
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
	}
}

// Configure sends host/configure and fails the spec if the host refuses.
func (tc *TestContext) Configure(p protocol.ConfigureParams) {
	tc.MustCall(protocol.MethodConfigure, p, &protocol.OK{})
}

// WithSecret returns the default configuration plus the provider_api_key secret.
func (tc *TestContext) WithSecret() protocol.ConfigureParams {
	p := tc.DefaultConfigure()
	p.Secrets["provider_api_key"] = tc.Config.Canaries.ProviderKey
	return p
}

// Call sends one request and returns the host's error, if any.
func (tc *TestContext) Call(method string, params, result any) error {
	if tc.client == nil {
		return errors.New("no connection to the host")
	}
	return tc.client.Call(tc.ctx(), method, params, result)
}

// MustCall sends one request and fails the spec, naming the method, if the
// host does not answer with a result.
func (tc *TestContext) MustCall(method string, params, result any) {
	ginkgo.GinkgoHelper()
	if err := tc.Call(method, params, result); err != nil {
		ginkgo.Fail(fmt.Sprintf("%s failed: %v", method, err))
	}
}

// HostErrorCode returns the JSON-RPC error code of err when the host answered
// with an error, and fails the spec when it did not answer at all.
func HostErrorCode(method string, err error) (int64, bool) {
	ginkgo.GinkgoHelper()
	if err == nil {
		return 0, false
	}
	var he *control.HostError
	if errors.As(err, &he) {
		return he.Code, true
	}
	ginkgo.Fail(fmt.Sprintf("%s: %v", method, err))
	return 0, false
}

// Verify runs package/verify and returns the verdict.
func (tc *TestContext) Verify(dir string, rel *protocol.Release) protocol.VerifyResult {
	ginkgo.GinkgoHelper()
	var res protocol.VerifyResult
	tc.MustCall(protocol.MethodVerify, protocol.PackageParams{Path: dir, Release: rel}, &res)
	return res
}

// VerifyRefuses runs package/verify and reports whether the host refused the
// package, either as a verdict (ok false) or with a package-invalid error.
// It returns what the host said, for failure messages.
func (tc *TestContext) VerifyRefuses(dir string, rel *protocol.Release) (bool, string) {
	ginkgo.GinkgoHelper()
	var res protocol.VerifyResult
	err := tc.Call(protocol.MethodVerify, protocol.PackageParams{Path: dir, Release: rel}, &res)
	if code, ok := HostErrorCode(protocol.MethodVerify, err); ok {
		said := err.Error()
		// The findings of an error refusal travel in error.data.
		var he *control.HostError
		var data protocol.ErrorData
		if errors.As(err, &he) && len(he.Data) > 0 && json.Unmarshal(he.Data, &data) == nil {
			said += "; " + describeFindings(data.Findings)
		}
		return code == protocol.CodePackageInvalid || code == protocol.CodeVerificationFailed, said
	}
	return !res.OK, describeFindings(res.Findings)
}

// Project runs package/project and returns the raw projection bytes.
func (tc *TestContext) Project(dir string) json.RawMessage {
	ginkgo.GinkgoHelper()
	var res protocol.ProjectResult
	tc.MustCall(protocol.MethodProject, protocol.PackageParams{Path: dir}, &res)
	if !res.OK {
		ginkgo.Fail(fmt.Sprintf("package/project refused a valid package: %s", describeFindings(res.Findings)))
	}
	return res.Projection
}

// Readiness runs app/readiness for a package folder.
func (tc *TestContext) Readiness(dir, entry string) (protocol.ReadinessResult, json.RawMessage) {
	ginkgo.GinkgoHelper()
	var raw json.RawMessage
	tc.MustCall(protocol.MethodReadiness, protocol.ReadinessParams{Path: dir, Entry: entry}, &raw)
	var res protocol.ReadinessResult
	if err := json.Unmarshal(raw, &res); err != nil {
		ginkgo.Fail(fmt.Sprintf("app/readiness answer does not decode: %v", err))
	}
	return res, raw
}

// List runs app/list.
func (tc *TestContext) List() protocol.ListResult {
	ginkgo.GinkgoHelper()
	var res protocol.ListResult
	tc.MustCall(protocol.MethodList, struct{}{}, &res)
	return res
}

// TryInstall asks for an install, with the user's consent or without any,
// tracks whatever the host installed for cleanup, and returns its answer.
func (tc *TestContext) TryInstall(dir string, rel *protocol.Release, consent bool) (protocol.InstalledApp, error) {
	c := protocol.Consent{Granted: consent}
	if consent {
		c.By = "user"
	}
	var res protocol.InstallResult
	err := tc.Call(protocol.MethodInstall, protocol.InstallParams{Path: dir, Release: rel, Consent: c}, &res)
	tc.resources.TrackApp(res.App.AppID)
	return res.App, err
}

// Install installs a package with consent and fails the spec if the host refuses.
func (tc *TestContext) Install(dir string, rel *protocol.Release) protocol.InstalledApp {
	ginkgo.GinkgoHelper()
	app, err := tc.TryInstall(dir, rel, true)
	if err != nil {
		ginkgo.Fail(fmt.Sprintf("%s failed: %v", protocol.MethodInstall, err))
	}
	return app
}

// Uninstall removes an app.
func (tc *TestContext) Uninstall(appID string, keepData bool) protocol.UninstallResult {
	ginkgo.GinkgoHelper()
	var res protocol.UninstallResult
	tc.MustCall(protocol.MethodUninstall, protocol.UninstallParams{AppID: appID, KeepData: keepData}, &res)
	return res
}

// FindApp returns the row of app/list for appID.
func FindApp(l protocol.ListResult, appID string) (protocol.InstalledApp, bool) {
	for _, a := range l.Apps {
		if a.AppID == appID {
			return a, true
		}
	}
	return protocol.InstalledApp{}, false
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

func describeFindings(fs []protocol.Finding) string {
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
