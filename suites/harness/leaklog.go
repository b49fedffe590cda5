package harness

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentapp/conformance/drivers/control"
)

// LeakLog keeps the planted secrets seen in any frame the host sent during
// the run (the transcript's OnReceive), whatever spec was running: a leak
// is evidence for HOST-NO-SECRET-LEAK wherever it shows. It keeps the first
// maxQuotedLeaks and counts the rest: a host that echoes secrets in 50,000
// answers is failed in a message of a few lines, not megabytes.
type LeakLog struct {
	forms []secretForm

	mu      sync.Mutex
	leaks   []leak          // the first maxQuotedLeaks seen
	total   int             // every leak seen
	secrets map[string]bool // every secret seen leaked
}

// maxQuotedLeaks is how many leaks the failure message quotes.
const maxQuotedLeaks = 10

// secretForm is one form of one planted secret.
type secretForm struct {
	secret, form string
	text         []byte
}

// leak is one planted secret seen in one frame.
type leak struct {
	seq                  int
	spec, method, secret string
	form                 string
}

func newLeakLog(c Canaries) *LeakLog {
	l := &LeakLog{secrets: map[string]bool{}}
	for name, v := range c.named() {
		if v == "" {
			continue
		}
		for _, f := range canaryForms(v) {
			l.forms = append(l.forms, secretForm{secret: name, form: f.name, text: []byte(f.text)})
		}
	}
	return l
}

// observe searches one received frame; each secret is logged once per frame.
func (l *LeakLog) observe(f control.ReceivedFrame) {
	found := map[string]bool{}
	for _, sf := range l.forms {
		if found[sf.secret] || !bytes.Contains(f.Body, sf.text) {
			continue
		}
		found[sf.secret] = true
		l.mu.Lock()
		l.total++
		l.secrets[sf.secret] = true
		if len(l.leaks) < maxQuotedLeaks {
			l.leaks = append(l.leaks, leak{seq: f.Seq, spec: f.Spec, method: f.Method, secret: sf.secret, form: sf.form})
		}
		l.mu.Unlock()
	}
}

// Text renders what the log holds, one leak per line, in transcript
// order, then how many more it did not quote and of which secrets; "" when
// nothing leaked.
func (l *LeakLog) Text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ls := append([]leak(nil), l.leaks...)
	sort.SliceStable(ls, func(i, j int) bool {
		if ls[i].seq != ls[j].seq {
			return ls[i].seq < ls[j].seq
		}
		return ls[i].secret < ls[j].secret
	})
	lines := make([]string, 0, len(ls)+1)
	for _, k := range ls {
		method := k.method
		if method == "" {
			method = "a frame"
		}
		lines = append(lines, fmt.Sprintf("transcript line %d (the answer to %s, during %q) carries the value of %s (%s)",
			k.seq, method, k.spec, k.secret, k.form))
	}
	if more := l.total - len(ls); more > 0 {
		secrets := make([]string, 0, len(l.secrets))
		for s := range l.secrets {
			secrets = append(secrets, s)
		}
		sort.Strings(secrets)
		lines = append(lines, fmt.Sprintf("and %d more not quoted here (%d leaks in all, of %s; the transcript has every one)",
			more, l.total, strings.Join(secrets, ", ")))
	}
	return strings.Join(lines, "; ")
}
