package registry

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func get(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

func bootstrap(t *testing.T, g *Registry, tenant string) Bootstrap {
	t.Helper()
	status, body := get(t, g.URL()+"/bootstrap?tenantId="+tenant)
	if status != http.StatusOK {
		t.Fatalf("bootstrap: %d %s", status, body)
	}
	var b Bootstrap
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	return b
}

// The bootstrap lists a tenant's enablements, channels resolved to the
// release they pin, withdrawn releases marked; the catalogue lists all.
func TestBootstrapResolvesPerTenant(t *testing.T) {
	var seen []string
	g, err := Start(func(r Request, answer string) { seen = append(seen, r.Path) })
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = g.Close() }()
	v1 := g.Publish(Release{AppID: "a", Version: "1.0.0", PackageHash: "sha256:1"}, []byte("zip1"))
	g.Publish(Release{AppID: "a", Version: "1.1.0", PackageHash: "sha256:2"}, []byte("zip2"))
	g.Publish(Release{AppID: "b", Version: "2.0.0", PackageHash: "sha256:3"}, []byte("zip3"))
	g.Pin("a", "stable", "1.0.0")
	g.EnableChannel("t1", "a", "stable")
	g.EnableVersion("t2", "b", "2.0.0")
	g.Withdraw("b", "2.0.0")

	b := bootstrap(t, g, "t1")
	if len(b.Releases) != 1 || b.Releases[0].Version != "1.0.0" || b.Releases[0].Channel != "stable" || b.Releases[0].Status != Active {
		t.Fatalf("t1 bootstrap: %+v", b.Releases)
	}
	if b.Releases[0].PackageURL != v1.PackageURL {
		t.Errorf("packageUrl %q, published as %q", b.Releases[0].PackageURL, v1.PackageURL)
	}
	if b := bootstrap(t, g, "t2"); len(b.Releases) != 1 || b.Releases[0].Status != Withdrawn {
		t.Fatalf("t2 bootstrap: %+v", b.Releases)
	}
	if status, _ := get(t, g.URL()+"/bootstrap"); status != http.StatusBadRequest {
		t.Errorf("a bootstrap without tenant: %d", status)
	}
	status, body := get(t, g.URL()+"/apps/a/releases")
	var c Catalogue
	if err := json.Unmarshal(body, &c); err != nil || status != http.StatusOK || len(c.Releases) != 2 {
		t.Fatalf("catalogue: %d %s", status, body)
	}
	if status, body := get(t, v1.PackageURL); status != http.StatusOK || string(body) != "zip1" {
		t.Errorf("package: %d %q", status, body)
	}
	if n := len(g.Requests(PackagePath("a", "1.0.0"))); n != 1 {
		t.Errorf("package requests: %d", n)
	}
	if len(seen) != 5 {
		t.Errorf("seen %d requests, want 5: %v", len(seen), seen)
	}
	g.SetMode(Down)
	if status, _ := get(t, g.URL()+"/bootstrap?tenantId=t1"); status != http.StatusServiceUnavailable {
		t.Errorf("down: %d", status)
	}
	g.SetMode(Garbage)
	if _, body := get(t, g.URL()+"/bootstrap?tenantId=t1"); json.Valid(body) {
		t.Errorf("garbage is JSON: %s", body)
	}
	g.SetMode(Drop)
	if resp, err := http.Get(g.URL() + "/bootstrap?tenantId=t1"); err == nil {
		if _, err := io.ReadAll(resp.Body); err == nil {
			t.Error("a dropped answer read to its end")
		}
		_ = resp.Body.Close()
	}
	g.Reset()
	if b := bootstrap(t, g, "t1"); len(b.Releases) != 0 {
		t.Errorf("after reset: %+v", b.Releases)
	}
}

// Archive packs files and folders under relative names and refuses links.
func TestArchive(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "dist", "ui"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"APP.md": "---\nname: a\n---\n", "dist/ui/index.html": "<p>"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := Archive(dir)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
	}
	want := []string{"APP.md", "dist/", "dist/ui/", "dist/ui/index.html"}
	if len(names) != len(want) {
		t.Fatalf("entries %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("entries %v, want %v", names, want)
		}
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "leak")); err != nil {
		t.Fatal(err)
	}
	if _, err := Archive(dir); err == nil {
		t.Error("a link was archived")
	}
}

// ArchiveWith plants entries as they are: names not cleaned, links as links.
func TestArchiveWith(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "APP.md"), []byte("---\nname: a\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ArchiveWith(dir, Entry{Name: "dist/../../x", Body: "x"}, Entry{Name: "l", Body: "../y", Link: true})
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 3 || zr.File[1].Name != "dist/../../x" || zr.File[2].Mode()&os.ModeSymlink == 0 {
		t.Fatalf("entries %+v", zr.File)
	}
}
