package control

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"sync"
)

// Redactor replaces secret values by <redacted:label> in recorded frames.
// The harness registers every canary it plants (host/configure secrets and
// session tokens) so that the transcript, which is published with the report,
// never carries them. Only the recorded copy is redacted; the wire is not.
type Redactor struct {
	mu      sync.RWMutex
	secrets []redaction // longest first, so that overlapping secrets redact fully
}

type redaction struct {
	forms [][]byte // the raw value and its JSON-escaped forms
	with  []byte
}

// NewRedactor returns an empty redactor.
func NewRedactor() *Redactor { return &Redactor{} }

// Add registers a secret value and the label that replaces it. Empty values
// are ignored.
func (r *Redactor) Add(secret, label string) {
	if r == nil || secret == "" {
		return
	}
	// The label lands inside JSON strings: keep it to characters that need
	// no escaping.
	label = strings.Map(func(c rune) rune {
		if c == '"' || c == '\\' || c < 0x20 || c == 0x7f {
			return '_'
		}
		return c
	}, label)
	red := redaction{with: []byte("<redacted:" + label + ">")}
	seen := map[string]bool{}
	for _, f := range jsonForms(secret) {
		if !seen[f] {
			seen[f] = true
			red.forms = append(red.forms, []byte(f))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets = append(r.secrets, red)
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i].forms[0]) > len(r.secrets[j].forms[0]) })
}

// jsonForms lists how a value can appear in a frame: raw, JSON-escaped with
// and without HTML escaping.
func jsonForms(s string) []string {
	forms := []string{s}
	plain, _ := json.Marshal(s) // escapes <, > and & as \u003c ...
	forms = append(forms, string(plain[1:len(plain)-1]))
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	esc := bytes.TrimSpace(b.Bytes())
	return append(forms, string(esc[1:len(esc)-1]))
}

// Redact returns b with every registered secret replaced; b itself is not
// modified.
func (r *Redactor) Redact(b []byte) []byte {
	if r == nil {
		return b
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, s := range r.secrets {
		for _, f := range s.forms {
			if bytes.Contains(b, f) {
				b = bytes.ReplaceAll(b, f, s.with)
			}
		}
	}
	return b
}
