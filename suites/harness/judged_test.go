package harness

import (
	"strings"
	"testing"
)

// A judged value is named by method and JSON pointer, escaped as RFC 6901
// says; an answer is quoted as a one-line excerpt.
func TestAtNamesMethodAndPointer(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{At("package/project", []any{"app", "description"}), "package/project /app/description"},
		{At("app/readiness", []any{"entries", 0, "status"}, "with lime.ui disabled"), "app/readiness /entries/0/status, with lime.ui disabled"},
		{At("app/list", []any{"a/b", "c~d"}), "app/list /a~1b/c~0d"},
		{At("host/observe", nil), "host/observe (the whole result)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	long := "{\n  \"status\": \"ready\",\n  \"checks\": [" + strings.Repeat(`{"name":"x"},`, 100) + "]\n}"
	e := Excerpt([]byte(long))
	if !strings.HasPrefix(e, `{ "status": "ready", "checks": [{"name":"x"}`) || !strings.HasSuffix(e, "more characters)") || strings.Contains(e, "\n") {
		t.Errorf("excerpt %q", e)
	}
	if Excerpt([]byte(`{"ok":true}`)) != `{"ok":true}` {
		t.Error("a short answer is quoted whole")
	}
}
