package mockhost

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/agentapp/conformance/drivers/protocol"
)

// redactedMark replaces a secret value the host found in something bound
// for an app.
const redactedMark = "[redacted]"

// secretValues are the values the host holds as credentials: its
// configured secrets and session tokens, longest first (so a value that
// contains another is replaced whole).
func secretValues(p protocol.ConfigureParams) []string {
	var vs []string
	for _, m := range []map[string]string{p.Secrets, p.SessionTokens} {
		for _, v := range m {
			if v != "" {
				vs = append(vs, v)
			}
		}
	}
	sort.Slice(vs, func(i, j int) bool { return len(vs[i]) > len(vs[j]) })
	return vs
}

// redactText replaces every secret value in s.
func redactText(s string, secrets []string) string {
	for _, v := range secrets {
		s = strings.ReplaceAll(s, v, redactedMark)
	}
	return s
}

// redactFirstText replaces the first copy of each secret value in s (used
// only by the redaction-first-copy-only fault).
func redactFirstText(s string, secrets []string) string {
	for _, v := range secrets {
		if i := strings.Index(s, v); i >= 0 {
			s = s[:i] + redactedMark + s[i+len(v):]
		}
	}
	return s
}

// redactJSON replaces every secret value inside the strings and member
// names of a JSON document bound for an app (spec 000, Shared host model:
// "The host must not expose bearer tokens, refresh tokens, provider keys,
// plaintext secrets ... to apps"): what the agent runtime says reaches the
// app as a projection, and a fact that quotes a credential (a tool call's
// headers, an error echoing a token) must not carry it through. A document
// that is not JSON is returned as it is.
func redactJSON(raw json.RawMessage, secrets []string, gaps redactionGaps) json.RawMessage {
	if len(raw) == 0 || len(secrets) == 0 {
		return raw
	}
	var doc any
	if json.Unmarshal(raw, &doc) != nil {
		return raw
	}
	out, err := json.Marshal(redactValue(doc, secrets, gaps))
	if err != nil {
		return raw
	}
	return out
}

// redactionGaps are the parts of a document redactJSON passes on as they
// are: only under the faults redaction-skips-lists (lists) and
// redaction-skips-member-names (objects' member names).
type redactionGaps struct {
	lists, names bool
}

func redactValue(v any, secrets []string, gaps redactionGaps) any {
	switch x := v.(type) {
	case string:
		return redactText(x, secrets)
	case []any:
		if gaps.lists {
			return x
		}
		for i := range x {
			x[i] = redactValue(x[i], secrets, gaps)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if !gaps.names {
				k = redactText(k, secrets)
			}
			out[k] = redactValue(e, secrets, gaps)
		}
		return out
	}
	return v
}
