//go:build !mutation

package mockhost

import (
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentapp/conformance/drivers/control"
	"github.com/agentapp/conformance/drivers/protocol"
	"github.com/agentapp/conformance/drivers/revocation"
)

// probe observes, through the protocol only, the behaviour one fault
// breaks. Each fault's probe must observe something different on a healthy
// host and on a host with that fault: that keeps every fault honest.
type probe func(t *testing.T, x *harness) string

// verdict summarises a verify answer.
func verdict(r protocol.VerifyResult) string {
	codes := make([]string, 0, len(r.Findings))
	for _, f := range r.Findings {
		if f.Severity == "error" {
			codes = append(codes, f.Code)
		}
	}
	return fmt.Sprintf("ok=%v name=%s errors=%v", r.OK, r.AppName, codes)
}

// verifyProbe verifies the package extra describes.
func verifyProbe(files map[string]string, rel *protocol.Release) probe {
	return func(t *testing.T, x *harness) string {
		return verdict(x.verify(pkg(t, "tiny-app", files), rel))
	}
}

// revocationProbe verifies a package naming a revocation service once,
// scripts the service (then), and verifies again (with a wrong packageHash
// expected when tampered); it reports the second verdict and how many
// requests the service saw.
func revocationProbe(cacheSeconds int, then func(svc *revocation.Service, hash string), tampered bool) probe {
	return func(t *testing.T, x *harness) string {
		svc, err := revocation.Start(nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = svc.Close() })
		dir := pkg(t, "tiny-app", map[string]string{"app.signature.yaml": fmt.Sprintf(
			"signature:\n  revocation:\n    checkUrl: %s\n    cacheSeconds: %d\n", svc.URL(), cacheSeconds)})
		first := x.verify(dir, nil)
		if then != nil {
			then(svc, first.PackageHash)
		}
		var rel *protocol.Release
		if tampered {
			rel = &protocol.Release{PackageHash: "sha256:" + strings.Repeat("0", 64)}
		}
		before := len(svc.Requests(""))
		return fmt.Sprintf("%s requests=%d", verdict(x.verify(dir, rel)), len(svc.Requests(""))-before)
	}
}

// hashProbe reads the packageHash of a package with the given files.
func hashProbe(files map[string]string) probe {
	return func(t *testing.T, x *harness) string {
		return x.verify(pkg(t, "tiny-app", files), nil).PackageHash
	}
}

// projProbe projects a package and reads one thing from the projection.
func projProbe(files map[string]string, read func(p map[string]any) string) probe {
	return func(t *testing.T, x *harness) string {
		p, err := x.project(pkg(t, "tiny-app", files))
		if err != nil {
			return "error: " + err.Error()
		}
		return read(p)
	}
}

// readyProbe configures the host, asks for readiness and reads the answer.
func readyProbe(extra string, files map[string]string, secrets map[string]string, caps map[string]protocol.Capability,
	clock, entry string, read func(r protocol.ReadinessResult) string) probe {
	return func(t *testing.T, x *harness) string {
		x.configure(secrets, caps, clock)
		if files == nil {
			files = map[string]string{}
		}
		files["APP.md"] = manifest(withDefaults(extra))
		r, err := x.readiness(protocol.ReadinessParams{Path: pkg(t, "tiny-app", files), Entry: entry})
		if err != nil {
			return "error: " + err.Error()
		}
		return read(r)
	}
}

func status(r protocol.ReadinessResult) string { return r.Status }

// entryKeys lists the keys of the projected entries.
func entryKeys(p map[string]any) string {
	var keys []string
	for _, e := range p["entries"].([]any) {
		keys = append(keys, fmt.Sprint(e.(map[string]any)["key"]))
	}
	return strings.Join(keys, ",")
}

// readinessYAML is an evals/readiness.yaml with one failing check in tier.
func readinessYAML(tier string) map[string]string {
	return map[string]string{"evals/readiness.yaml": "readiness:\n  " + tier + ":\n    - check: knowledge_bound\n      template: style_guide\n"}
}

// workerProbe runs a package whose worker would leave a marker file, via do,
// and reports whether the marker appeared.
// skillProbe reports whether do ran a bundled Skill's script.
func skillProbe(do func(x *harness, dir string) error) probe {
	return func(t *testing.T, x *harness) string {
		marker := filepath.Join(t.TempDir(), "skill-ran")
		dir := pkg(t, "tiny-app", map[string]string{
			"APP.md":                        manifest(withDefaults("skills:\n  bundled:\n    - path: ./skills/probe\n      activation: auto\n")),
			"skills/probe/SKILL.md":         "---\nname: probe\ndescription: A probe Skill.\n---\n",
			"skills/probe/scripts/setup.sh": "echo ran > '" + marker + "'\n",
		})
		err := do(x, dir)
		_, statErr := os.Stat(marker)
		return fmt.Sprintf("err=%v ran=%v", err, statErr == nil)
	}
}

func workerProbe(do func(x *harness, dir string) error) probe {
	return func(t *testing.T, x *harness) string {
		marker := filepath.Join(t.TempDir(), "worker-ran")
		dir := pkg(t, "tiny-app", map[string]string{
			"APP.md":             manifest(withDefaults("runtimePackage:\n  worker:\n    path: ./dist/worker\n    entry: run.sh\n")),
			"dist/worker/run.sh": "echo ran > '" + marker + "'\n",
		})
		err := do(x, dir)
		_, statErr := os.Stat(marker)
		return fmt.Sprintf("err=%v ran=%v", err, statErr == nil)
	}
}

const layeredEntries = "entries:\n  - key: main\n    kind: page\n    title: Main\n    route: /main\n  - key: extra\n    kind: panel\n    title: Extra\n    panel: extra\n"

func faultProbes() map[string]probe {
	secretSlot := "secrets:\n  - key: api_key\n    required: true\n"
	return map[string]probe{
		"hello-wrong-protocol": func(t *testing.T, x *harness) string { return string(x.c.HelloRaw()) },
		"reset-keeps-apps": func(t *testing.T, x *harness) string {
			if _, err := x.install(app(t, ""), nil, true); err != nil {
				t.Fatal(err)
			}
			x.must(protocol.MethodReset, nil, nil)
			return raw(x.list().Apps)
		},
		"lenient-params": func(t *testing.T, x *harness) string {
			return fmt.Sprint(x.call(protocol.MethodVerify, map[string]any{}, nil))
		},
		"unknown-method-null": func(t *testing.T, x *harness) string { return fmt.Sprint(x.call("app/observe", nil, nil)) },
		"name-from-directory": func(t *testing.T, x *harness) string {
			return verdict(x.verify(pkg(t, "some-folder", map[string]string{}), nil))
		},
		"accept-missing-required":     verifyProbe(map[string]string{"APP.md": "---\nname: tiny-app\nversion: 1.0.0\n---\n# no description\n"}, nil),
		"accept-any-manifest-version": verifyProbe(map[string]string{"APP.md": manifest(withDefaults("manifestVersion: 9.9.9\n"))}, nil),
		"drop-display-metadata": func(t *testing.T, x *harness) string {
			p, err := x.project(app(t, ""))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := x.install(app(t, ""), nil, true); err != nil {
				t.Fatal(err)
			}
			return raw(p["app"].(map[string]any)["displayName"]) + raw(p["publisher"]) + x.list().Apps[0].DisplayName
		},
		"ignore-layered-files": projProbe(map[string]string{"app.entries.yaml": layeredEntries}, entryKeys),
		"frontmatter-wins":     projProbe(map[string]string{"app.entries.yaml": layeredEntries}, entryKeys),
		"legacy-kinds-as-current": projProbe(map[string]string{"APP.md": manifest(withDefaults(
			"entries:\n  - key: start\n    kind: home\n    title: Home\n"))}, entryKeys),
		"skip-package-hash":  verifyProbe(map[string]string{}, &protocol.Release{PackageHash: "sha256:" + strings.Repeat("0", 64)}),
		"skip-manifest-hash": verifyProbe(map[string]string{}, &protocol.Release{ManifestHash: "sha256:" + strings.Repeat("0", 64)}),
		"hash-full-path-sort": func(t *testing.T, x *harness) string {
			return x.verify(pkg(t, "tiny-app", map[string]string{"a.txt": "a\n", "a/b.txt": "b\n"}), nil).PackageHash
		},
		"hash-skips-dotfiles":      hashProbe(map[string]string{".hidden": "h\n"}),
		"hash-skips-empty-files":   hashProbe(map[string]string{"empty": ""}),
		"hash-normalises-newlines": hashProbe(map[string]string{"crlf.txt": "a\r\nb\r\n"}),
		"hash-content-only":        hashProbe(map[string]string{"x.txt": "x\n"}),
		"appmd-optional": func(t *testing.T, x *harness) string {
			dir := app(t, "")
			if err := os.Remove(filepath.Join(dir, "APP.md")); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# not an app\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return verdict(x.verify(dir, nil))
		},
		"line-subset-yaml": verifyProbe(map[string]string{"APP.md": manifest(withDefaults("metadata:\n\t- tabbed: [unclosed\n"))}, nil),
		"hash-through-links": func(t *testing.T, x *harness) string {
			return x.verify(appWithOutsideLink(t), nil).PackageHash
		},
		"skip-unreadable-files": func(t *testing.T, x *harness) string {
			dir := app(t, "")
			if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling")); err != nil {
				t.Fatal(err)
			}
			return verdict(x.verify(dir, nil))
		},
		"ignore-signature-file": verifyProbe(map[string]string{"app.signature.yaml": "signature:\n  manifest:\n    hash: sha256:" + strings.Repeat("1", 64) + "\n"}, nil),
		"ignore-runtime-range":  runtimeBackedProbe,
		"ignore-host-version":   verifyProbe(map[string]string{"APP.md": manifest(withDefaults("requires:\n  lime:\n    appRuntime: \">=2.0.0\"\n"))}, nil),
		"trust-self-declared-verified": func(t *testing.T, x *harness) string {
			p, err := x.project(app(t, ""))
			if err != nil {
				t.Fatal(err)
			}
			return raw(p["publisher"])
		},
		"ignore-version-ranges": verifyProbe(map[string]string{"APP.md": manifest(withDefaults("requires:\n  capabilities:\n    lime.ui: \">=2.0.0\"\n"))}, nil),
		"allow-parent-refs":     verifyProbe(map[string]string{"APP.md": manifest(withDefaults("changelog: ../outside.md\n"))}, nil),
		"follow-escaping-links": func(t *testing.T, x *harness) string {
			return verdict(x.verify(appWithOutsideLink(t), nil))
		},
		"no-yaml-limits": verifyProbe(map[string]string{"APP.md": manifest(withDefaults("deep: " + strings.Repeat("[", 80) + strings.Repeat("]", 80) + "\n"))}, nil),
		"install-skips-verification": func(t *testing.T, x *harness) string {
			_, err := x.install(app(t, ""), &protocol.Release{PackageHash: "sha256:" + strings.Repeat("0", 64)}, true)
			return fmt.Sprint(code(err), len(x.list().Apps))
		},
		"install-without-consent": func(t *testing.T, x *harness) string {
			_, err := x.install(app(t, ""), nil, false)
			return fmt.Sprint(code(err), len(x.list().Apps))
		},
		"list-drops-hash": func(t *testing.T, x *harness) string {
			if _, err := x.install(app(t, ""), nil, true); err != nil {
				t.Fatal(err)
			}
			a := x.list().Apps[0]
			return a.PackageHash + a.ManifestHash
		},
		"uninstall-always-deletes": uninstallProbe(true),
		"uninstall-never-deletes":  uninstallProbe(false),
		"uninstall-removes-all": func(t *testing.T, x *harness) string {
			other := pkg(t, "other", map[string]string{"APP.md": strings.Replace(manifest(withDefaults("")), "name: tiny-app", "name: other-app", 1)})
			for _, d := range []string{app(t, ""), other} {
				if _, err := x.install(d, nil, true); err != nil {
					t.Fatal(err)
				}
			}
			x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app"}, nil)
			return raw(x.list().Apps)
		},
		"projection-random-id": func(t *testing.T, x *harness) string {
			dir := app(t, "")
			first, second := x.projectRaw(dir), x.projectRaw(dir)
			return fmt.Sprint(first == second)
		},
		"projection-timestamp": projProbe(map[string]string{}, func(p map[string]any) string { return fmt.Sprint(p["generatedAt"] != nil) }),
		"projection-absolute-path": func(t *testing.T, x *harness) string {
			dir := app(t, "")
			return fmt.Sprint(strings.Contains(x.projectRaw(dir), dir))
		},
		"provenance-missing-on-entry": projProbe(map[string]string{"app.entries.yaml": layeredEntries}, func(p map[string]any) string {
			es := p["entries"].([]any)
			return fmt.Sprint(es[len(es)-1].(map[string]any)["provenance"] != nil)
		}),
		"projection-without-provenance": projProbe(map[string]string{}, func(p map[string]any) string { return fmt.Sprint(p["provenance"] != nil) }),
		"projection-embeds-secrets": func(t *testing.T, x *harness) string {
			x.configure(map[string]string{"api_key": "canary-1234"}, nil, "")
			return fmt.Sprint(strings.Contains(x.projectRaw(app(t, secretSlot)), "canary-1234"))
		},
		"projection-drops-permissions": projProbe(map[string]string{"APP.md": manifest(withDefaults("permissions:\n  - key: storage_rw\n    scope: storage\n"))},
			func(p map[string]any) string { return fmt.Sprint(p["permissions"] != nil) }),
		"skill-scripts-run-on-project": skillProbe(func(x *harness, dir string) error {
			return x.call(protocol.MethodProject, protocol.PackageParams{Path: dir}, nil)
		}),
		"skill-scripts-run-on-verify": skillProbe(func(x *harness, dir string) error {
			return x.call(protocol.MethodVerify, protocol.PackageParams{Path: dir}, nil)
		}),
		"skill-scripts-run-on-readiness": skillProbe(func(x *harness, dir string) error {
			_, err := x.readiness(protocol.ReadinessParams{Path: dir})
			return err
		}),
		"exec-worker-on-project": workerProbe(func(x *harness, dir string) error {
			return x.call(protocol.MethodProject, protocol.PackageParams{Path: dir}, nil)
		}),
		"exec-worker-on-verify": workerProbe(func(x *harness, dir string) error {
			return x.call(protocol.MethodVerify, protocol.PackageParams{Path: dir}, nil)
		}),
		"exec-worker-on-readiness": workerProbe(func(x *harness, dir string) error {
			_, err := x.readiness(protocol.ReadinessParams{Path: dir})
			return err
		}),
		"render-ui-on-readiness": func(t *testing.T, x *harness) string {
			var asked atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { asked.Add(1) }))
			t.Cleanup(srv.Close)
			dir := pkg(t, "tiny-app", map[string]string{"dist/ui/index.html": `<img src="` + srv.URL + `/image">`,
				"APP.md": manifest(withDefaults("runtimePackage:\n  ui:\n    path: ./dist/ui\n    entry: index.html\n    format: static\n"))})
			_, err := x.readiness(protocol.ReadinessParams{Path: dir})
			return fmt.Sprintf("err=%v asked=%d", err, asked.Load())
		},
		"readiness-nonstandard-status": readyProbe("", nil, nil, nil, "", "", status),
		"refuse-without-entries":       verifyProbe(map[string]string{"APP.md": manifest("manifestVersion: 0.10.0\n")}, nil),
		"refuse-unrelated-finding":     verifyProbe(map[string]string{}, nil),
		"uninstall-by-prefix": func(t *testing.T, x *harness) string {
			for _, name := range []string{"tiny-app", "tiny-app-extra"} {
				dir := pkg(t, name, map[string]string{"APP.md": strings.Replace(manifest(withDefaults("")), "name: tiny-app", "name: "+name, 1)})
				if _, err := x.install(dir, nil, true); err != nil {
					t.Fatal(err)
				}
			}
			x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app", KeepData: true}, nil)
			return raw(x.list().Apps)
		},
		"available-empty-list-ignored": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Available: map[string][]string{"tools": {}}})
			r, err := x.readiness(protocol.ReadinessParams{Path: app(t, "toolRefs:\n  - key: web_search\n    required: true\n")})
			return fmt.Sprint(r.Status, err)
		},
		"escape-refusal-quotes-target": func(t *testing.T, x *harness) string {
			dir := pkg(t, "tiny-app", map[string]string{"APP.md": manifest(withDefaults(
				"entries:\n  - key: main\n    kind: expert-chat\n    title: Main\n    persona: ../outside.md\n"))})
			if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "outside.md"), []byte("outside-canary\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return fmt.Sprint(strings.Contains(fmt.Sprint(x.verify(dir, nil).Findings), "outside-canary"))
		},
		"accept-everything": verifyProbe(map[string]string{"APP.md": manifest(withDefaults("manifestVersion: 9.9.9\n"))}, nil),
		"vague-refusals":    verifyProbe(map[string]string{"APP.md": manifest(withDefaults("manifestVersion: 9.9.9\n"))}, nil),
		"error-data-carries-session": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{SessionTokens: map[string]string{"cloud": "token-1"}})
			_, err := x.install(app(t, ""), nil, false)
			var he *control.HostError
			if !errors.As(err, &he) {
				t.Fatalf("install without consent: %v", err)
			}
			return string(he.Data)
		},
		"app-calls-after-uninstall": func(t *testing.T, x *harness) string {
			if _, err := x.install(app(t, "secrets:\n  - {key: provider_api_key, required: false}\n"), nil, true); err != nil {
				t.Fatal(err)
			}
			x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app"}, nil)
			err := x.call(protocol.MethodSecret, protocol.SecretParams{AppID: "tiny-app", Key: "provider_api_key", Value: "v"}, nil)
			return fmt.Sprint(code(err))
		},
		"readiness-after-uninstall": func(t *testing.T, x *harness) string {
			if _, err := x.install(app(t, ""), nil, true); err != nil {
				t.Fatal(err)
			}
			x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app"}, nil)
			_, err := x.readiness(protocol.ReadinessParams{AppID: "tiny-app"})
			return fmt.Sprint(code(err))
		},
		"count-bytes-not-characters":    verifyProbe(map[string]string{"APP.md": manifest(withDefaults("shortDescription: " + strings.Repeat("é", 140) + "\n"))}, nil),
		"no-length-limits":              verifyProbe(map[string]string{"APP.md": manifest(withDefaults("shortDescription: " + strings.Repeat("a", 141) + "\n"))}, nil),
		"list-limits-unchecked":         verifyProbe(map[string]string{"APP.md": manifest(withDefaults("categories: [a, b, c, d, e, f, g, h, i]\n"))}, nil),
		"list-limit-exclusive":          verifyProbe(map[string]string{"APP.md": manifest(withDefaults("categories: [a, b, c, d, e, f, g, h]\n"))}, nil),
		"timeline-unchecked":            verifyProbe(map[string]string{"APP.md": manifest(withDefaults("createdAt: yesterday\n"))}, nil),
		"timeline-shape-only":           verifyProbe(map[string]string{"APP.md": manifest(withDefaults("createdAt: \"2026-02-30T10:00:00Z\"\n"))}, nil),
		"timeline-z-only":               verifyProbe(map[string]string{"APP.md": manifest(withDefaults("createdAt: \"2026-01-05T10:00:00+08:00\"\n"))}, nil),
		"open-vocabularies":             verifyProbe(map[string]string{"APP.md": strings.Replace(manifest(withDefaults("")), "appType: domain-app", "appType: plugin", 1)}, nil),
		"only-current-manifest-version": verifyProbe(map[string]string{"APP.md": manifest(withDefaults("manifestVersion: 0.4.0\n"))}, nil),
		"allow-bypass-permissions":      verifyProbe(map[string]string{"APP.md": manifest(withDefaults("permissionMode: bypassPermissions\n"))}, nil),
		"ignore-tenant-policy": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedApps: []string{"tiny-app"}}})
			_, err := x.install(app(t, ""), nil, true)
			return fmt.Sprint(code(err))
		},
		"policy-denies-whole-app": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Policy: &protocol.Policy{DeniedEntries: map[string][]string{"tiny-app": {"other"}}}})
			r, err := x.readiness(protocol.ReadinessParams{Path: app(t, ""), Entry: "main"})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		"ignore-permission-grants": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Grants: map[string][]string{"tiny-app": {}}})
			r, err := x.readiness(protocol.ReadinessParams{Path: pkg(t, "tiny-app", map[string]string{
				"app.permissions.yaml": "permissions:\n  - {key: files, scope: filesystem, required: true}\n"})})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		"register-entries-only": func(t *testing.T, x *harness) string {
			if _, err := x.install(pkg(t, "tiny-app", map[string]string{
				"app.permissions.yaml": "permissions:\n  - {key: files, scope: filesystem}\n"}), nil, true); err != nil {
				t.Fatal(err)
			}
			return raw(x.list().Apps[0].Registered)
		},
		"health-ignored":             healthProbe("storage_accessible"),
		"health-first-check-only":    healthProbe("ui_bundle_loaded"),
		"health-startup-needs-setup": healthProbe("storage_accessible"),
		"health-runtime-blocks":      healthProbe("agent_runtime_available"),
		"health-signal-by-prefix":    healthProbe("storage"),
		"health-failure-sticks": func(t *testing.T, x *harness) string {
			healthProbe("storage_accessible")(t, x)
			return healthProbe()(t, x)
		},
		"ignore-availability": func(t *testing.T, x *harness) string {
			x.configureWith(protocol.ConfigureParams{Available: map[string][]string{"tools": {}}})
			r, err := x.readiness(protocol.ReadinessParams{Path: app(t, "toolRefs:\n  - {key: pdf, required: true}\n")})
			if err != nil {
				t.Fatal(err)
			}
			return r.Status
		},
		"ignore-revocation":        revocationProbe(0, func(svc *revocation.Service, hash string) { svc.Revoke(hash, "test") }, false),
		"revocation-before-hash":   revocationProbe(0, nil, true),
		"revocation-cache-forever": revocationProbe(0, func(svc *revocation.Service, hash string) { svc.Revoke(hash, "test") }, false),
		"revocation-fail-open":     revocationProbe(0, func(svc *revocation.Service, _ string) { svc.SetMode(revocation.Down) }, false),
		"refusals-as-unsupported": func(t *testing.T, x *harness) string {
			err := x.call(protocol.MethodVerify, protocol.PackageParams{Path: app(t, "manifestVersion: 9.9.9\n")}, nil)
			return fmt.Sprint(code(err))
		},
		"vague-readiness":         readyProbe(secretSlot, nil, nil, nil, "", "", func(r protocol.ReadinessResult) string { return raw(r.Blockers) }),
		"not-installed-not-ready": readyProbe("", nil, nil, nil, "", "", status),
		"required-tier-ignored":   readyProbe("", readinessYAML("required"), nil, nil, "", "", status),
		"recommended-tier-blocks": readyProbe("", readinessYAML("recommended"), nil, nil, "", "", status),
		"performance-tier-blocks": readyProbe("", readinessYAML("performance"), nil, nil, "", "", status),
		"omit-setup-actions": readyProbe(secretSlot, nil, nil, nil, "", "", func(r protocol.ReadinessResult) string {
			return raw(r.SetupActions)
		}),
		"ignore-end-of-life": readyProbe("endOfLifeAt: 2030-01-01T00:00:00Z\n", nil, nil, nil, "2031-01-01T00:00:00Z", "", status),
		"hide-superseded-by": readyProbe("endOfLifeAt: 2030-01-01T00:00:00Z\nsupportWindow:\n  supersededBy: 2.0.0\n", nil, nil, nil,
			"2031-01-01T00:00:00Z", "", func(r protocol.ReadinessResult) string { return r.SupersededBy + raw(r.Checks) }),
		"projection-cache-by-path": func(t *testing.T, x *harness) string {
			dir := app(t, "")
			if _, err := x.project(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "extra.txt"), []byte("changed\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := x.project(dir)
			if err != nil {
				t.Fatal(err)
			}
			return raw(p["provenance"])
		},
		"lifecycle-by-day":       readyProbe("endOfLifeAt: 2030-01-01T00:00:00Z\n", nil, nil, nil, "2030-01-01T00:00:01Z", "", status),
		"ignore-clock-override":  readyProbe("endOfLifeAt: 2999-01-01T00:00:00Z\n", nil, nil, nil, "3000-01-01T00:00:00Z", "", status),
		"deprecated-blocks":      readyProbe("deprecatedAt: 2020-01-01T00:00:00Z\n", nil, nil, nil, "2021-01-01T00:00:00Z", "", status),
		"ignore-missing-secrets": readyProbe(secretSlot, nil, nil, nil, "", "", status),
		"holds-no-secrets":       readyProbe(secretSlot, nil, map[string]string{"api_key": "configured"}, nil, "", "", status),
		"ignore-capability-profile": readyProbe("requires:\n  capabilities:\n    lime.agent: current\n", nil, nil,
			map[string]protocol.Capability{"lime.agent": {Version: "0.10.0", Enabled: false}}, "", "", status),
		"entry-readiness-copies-app": readyProbe("requires:\n  capabilities:\n    lime.ui: current\n"+
			"entries:\n  - key: main\n    kind: page\n    title: Main\n    route: /main\n    requiredCapabilities: [lime.ui]\n"+
			"  - key: chat\n    kind: expert-chat\n    title: Chat\n    persona: agent\n    requiredCapabilities: [lime.agent]\n",
			nil, nil, map[string]protocol.Capability{"lime.agent": {Version: "0.10.0", Enabled: false}}, "", "",
			func(r protocol.ReadinessResult) string { return raw(r.Entries) }),
		"readiness-echoes-secret": readyProbe(secretSlot, nil, map[string]string{"api_key": "canary-5678"}, nil, "", "",
			func(r protocol.ReadinessResult) string { return fmt.Sprint(strings.Contains(raw(r), "canary-5678")) }),
	}
}

// uninstallProbe installs, uninstalls with keepData and reports what stayed.
func uninstallProbe(keep bool) probe {
	return func(t *testing.T, x *harness) string {
		if _, err := x.install(app(t, ""), nil, true); err != nil {
			t.Fatal(err)
		}
		var u protocol.UninstallResult
		x.must(protocol.MethodUninstall, protocol.UninstallParams{AppID: "tiny-app", KeepData: keep}, &u)
		return fmt.Sprint(u.DataRemoved, raw(x.list().Retained))
	}
}

// TestEveryFaultChangesTheAnswer runs each fault's probe on a healthy host
// and on a host with only that fault: the observations must differ.
func TestEveryFaultChangesTheAnswer(t *testing.T) {
	probes := faultProbes()
	maps.Copy(probes, registryProbes())
	maps.Copy(probes, installProbes())
	maps.Copy(probes, surfaceProbes())
	maps.Copy(probes, permissionProbes())
	maps.Copy(probes, agentProbes())
	maps.Copy(probes, lifecycleProbes())
	maps.Copy(probes, migrationProbes())
	maps.Copy(probes, installedProbes())
	maps.Copy(probes, overlayProbes())
	maps.Copy(probes, platformProbes())
	maps.Copy(probes, backendProbes())
	maps.Copy(probes, workflowProbes())
	maps.Copy(probes, secretProbes())
	maps.Copy(probes, upgradeProbes())
	maps.Copy(probes, changeAndTransitionProbes())
	maps.Copy(probes, boundaryAndMemberProbes())
	maps.Copy(probes, identityAndEntryPointProbes())
	for _, more := range []map[string]probe{catalogAuditProbes(), installAuditProbes(), readinessAuditProbes(),
		dataAuditProbes(), surfaceAuditProbes(), agentAuditProbes(), heldOutBProbes(), heldOutCProbes(), heldOutDProbes(), heldOutEProbes(), heldOutFProbes(), heldOutGProbes(), heldOutHProbes(), heldOutH2Probes(), heldOutIProbes(), heldOutJProbes(), heldOutKProbes(), heldOutLProbes(), heldOutMProbes()} {
		maps.Copy(probes, more)
	}
	for _, f := range Faults() {
		if _, ok := probes[f.Name]; f.Hostile && !ok {
			continue // hostile_test.go tests it
		}
		pr, ok := probes[f.Name]
		if !ok {
			t.Errorf("fault %s has no probe", f.Name)
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			t.Parallel()
			healthy := pr(t, start(t))
			faulty := pr(t, start(t, f.Name))
			t.Logf("healthy: %s\nfaulty:  %s", healthy, faulty)
			if healthy == faulty {
				t.Errorf("fault %s changes nothing the probe sees: %s", f.Name, healthy)
			}
		})
	}
	for name := range probes {
		if _, err := ParseFaults([]string{name}); err != nil {
			t.Errorf("probe for unknown fault: %v", err)
		}
	}
}

// TestEveryFaultLivesAtOneMarkedPlace keeps the promise that a reader finds
// a fault's code by grepping `// fault: NAME`: exactly one such comment per
// fault in mockhost's sources.
func TestEveryFaultLivesAtOneMarkedPlace(t *testing.T) {
	src := sourceOfMockhost(t)
	for _, f := range Faults() {
		if n := strings.Count(src, "// fault: "+f.Name+" "); n != 1 {
			t.Errorf("fault %s is marked at %d places, want 1", f.Name, n)
		}
	}
}

// appWithOutsideLink is a tiny app with link.txt pointing outside it.
func appWithOutsideLink(t *testing.T) string {
	t.Helper()
	dir := app(t, "")
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runtimeBackedProbe installs a release offered only runtime-backed that
// needs lime-runtime 2.0.0 on a system that has 1.10.0, and reports the
// answer's code and findings.
func runtimeBackedProbe(t *testing.T, x *harness) string {
	x.configureWith(protocol.ConfigureParams{SystemRuntime: &protocol.SystemRuntime{Version: "1.10.0"}})
	dir := pkg(t, "tiny-app", map[string]string{"app.install.yaml": "install:\n  modes: [runtime_backed]\n  runtimeBacked:\n    requires: lime-runtime\n    minVersion: 2.0.0\n"})
	_, err := x.install(dir, nil, true)
	c, _, data := hostErrorData(err)
	return fmt.Sprint(c, data)
}

// healthProbe answers the readiness status of an app with two critical
// startup health checks and a critical runtime one while the signals
// failing read as failing.
func healthProbe(failing ...string) probe {
	return func(t *testing.T, x *harness) string {
		x.configureWith(protocol.ConfigureParams{Health: &protocol.HealthSignals{Failing: append([]string{}, failing...)}})
		dir := pkg(t, "tiny-app", map[string]string{"evals/health.yaml": "health:\n  startup:\n    - {check: storage_accessible, critical: true}\n    - {check: ui_bundle_loaded, critical: true}\n  runtime:\n    - {check: agent_runtime_available, critical: true}\n"})
		r, err := x.readiness(protocol.ReadinessParams{Path: dir})
		if err != nil {
			t.Fatal(err)
		}
		return r.Status
	}
}
