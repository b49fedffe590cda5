package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
)

// Artifact is a file a spec saved into the report folder when it did not
// pass: a screenshot of the surface, the probe's log (docs/report-format.md
// "Artifacts"). Its SHA-256 is part of the signed predicate, so the signature
// covers the file: verify checks it against the file beside the report.
type Artifact struct {
	// Path is relative to the report folder (the folder of report.json),
	// "/"-separated, and never leaves the folder (ArtifactPathPattern).
	Path string `json:"path"`
	// SHA256 is the hex SHA-256 of the file.
	SHA256 string `json:"sha256"`
	// Kind is ArtifactScreenshot for a .png file, ArtifactLog otherwise.
	Kind string `json:"kind"`
	// Attempt is the attempt of the spec that saved it (1, or 2 when a
	// browser spec ran again), read from its name (ArtifactName); 0 when
	// the name does not say.
	Attempt int `json:"attempt,omitempty"`
}

// ArtifactsDir is the report folder's subfolder of artifacts: the only
// folder a report holds.
const ArtifactsDir = "artifacts"

// Artifact kinds.
const (
	ArtifactScreenshot = "screenshot"
	ArtifactLog        = "log"
)

// MaxSpecArtifacts caps the artifacts one spec lists (the schema's maxItems).
const MaxSpecArtifacts = 64

// ArtifactPathPattern is what an artifact path may be, in the predicate
// schema too: one to eight "/"-separated names of 1 to 100 letters, digits,
// ".", "_" and "-", none starting with "." (so no "..", no ".", no hidden
// file), no leading "/", no "\", no drive letter.
const ArtifactPathPattern = `^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}(/[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}){0,7}$`

var artifactPath = regexp.MustCompile(ArtifactPathPattern)

// CheckArtifactPath says why p cannot name an artifact: it must stay
// relative to the report folder, with "/" separators, and never leave it.
func CheckArtifactPath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("artifact path is empty")
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || len(p) > 1 && p[1] == ':':
		return fmt.Errorf("artifact path %q is absolute; it must be relative to the report folder", p)
	case strings.Contains(p, `\`):
		return fmt.Errorf("artifact path %q uses \\; separators are /", p)
	case p == ".." || strings.HasPrefix(p, "../") || strings.HasSuffix(p, "/..") || strings.Contains(p, "/../"):
		return fmt.Errorf("artifact path %q leaves the report folder", p)
	case !artifactPath.MatchString(p):
		return fmt.Errorf("artifact path %q is not 1 to 8 /-separated names of A-Z a-z 0-9 . _ - (none starting with .)", p)
	}
	return nil
}

// MaxArtifactAttempt is the highest attempt an artifact records.
const MaxArtifactAttempt = 99

// ArtifactName is the file name a spec gives what it saves on attempt
// (1-based) of its run: base, "-attempt" and the attempt, "-" and n (which
// of its browser surfaces), then ext (".png", ".log"). ArtifactsIn reads the
// attempt back from it, so report.html can label the screenshots of a spec
// that ran twice.
func ArtifactName(base string, attempt, n int, ext string) string {
	return fmt.Sprintf("%s-attempt%d-%d%s", base, attempt, n, ext)
}

// artifactAttempt matches ArtifactName's attempt in a file name.
var artifactAttempt = regexp.MustCompile(`-attempt([1-9][0-9]?)-[0-9]+\.[A-Za-z0-9]+$`)

// ArtifactAttempt is the attempt ArtifactName wrote into p's file name, 0
// when it holds none.
func ArtifactAttempt(p string) int {
	m := artifactAttempt.FindStringSubmatch(path.Base(p))
	if m == nil {
		return 0
	}
	n := 0
	for _, c := range m[1] {
		n = n*10 + int(c-'0')
	}
	return n
}

// ArtifactKind is the kind of the file at p: a screenshot for .png, else a log.
func ArtifactKind(p string) string {
	if strings.EqualFold(path.Ext(p), ".png") {
		return ArtifactScreenshot
	}
	return ArtifactLog
}

// ArtifactsIn describes the files a spec saved, by paths relative to the
// report folder dir, with their digests read from dir. A path that is not
// a valid artifact path (CheckArtifactPath), or whose file is missing,
// unreadable or not a regular file, is dropped, as is a repeated one;
// at most MaxSpecArtifacts are kept. It returns nil when none is left, and
// when dir is "".
func ArtifactsIn(dir string, paths []string) []Artifact {
	if dir == "" || len(paths) == 0 {
		return nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil
	}
	defer root.Close()
	var out []Artifact
	seen := map[string]bool{}
	for _, p := range paths {
		if len(out) == MaxSpecArtifacts {
			break
		}
		if seen[p] || CheckArtifactPath(p) != nil {
			continue
		}
		seen[p] = true
		sum, err := rootSHA256(root, p)
		if err != nil {
			continue
		}
		out = append(out, Artifact{Path: p, SHA256: sum, Kind: ArtifactKind(p), Attempt: ArtifactAttempt(p)})
	}
	return out
}

// errNotRegular is a path that names a folder, a device or the like.
var errNotRegular = errors.New("not a regular file")

// rootSHA256 hashes the regular file at p inside root; os.Root refuses a
// path, or a symbolic link, that leads out of it.
func rootSHA256(root *os.Root, p string) (string, error) {
	f, err := root.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", errNotRegular
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// CheckArtifacts checks that every artifact r lists is a file in dir (the
// folder beside report.json) whose SHA-256 is the one listed. It stops at
// the first that is not, with a one-line error (KindArtifact) naming it.
// It returns how many distinct artifacts it checked.
func CheckArtifacts(dir string, r *Results) (int, error) {
	type listed struct{ path, sha string }
	var all []listed
	seen := map[listed]bool{}
	for _, rr := range r.Requirements {
		for _, s := range rr.Specs {
			for _, a := range s.Artifacts {
				l := listed{a.Path, a.SHA256}
				if !seen[l] {
					seen[l] = true
					all = append(all, l)
				}
			}
		}
	}
	if len(all) == 0 {
		return 0, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, verr(KindArtifact, "%s: cannot open the report folder %s: %v", all[0].path, dir, oneLine(err))
	}
	defer root.Close()
	for _, a := range all {
		if err := CheckArtifactPath(a.path); err != nil {
			return 0, verr(KindArtifact, "%v", err)
		}
		sum, err := rootSHA256(root, a.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return 0, verr(KindArtifact, "%s is missing: the report lists it, but %s holds no such file", a.path, dir)
		case err != nil:
			return 0, verr(KindArtifact, "%s cannot be read: %v", a.path, oneLine(err))
		case sum != a.sha:
			return 0, verr(KindArtifact, "%s has SHA-256 %s, but the signed report lists %s: the file changed after signing", a.path, sum, a.sha)
		}
	}
	return len(all), nil
}

// oneLine keeps an error message on one line.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
