package harness

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentapp/conformance/drivers/protocol"
)

// A failure names where the value it judged came from: the method that
// answered it and the JSON pointer (RFC 6901) of the value in its result,
// then what was expected and what the host answered, as an excerpt, never
// a dump of the whole answer (issue 28).

// At names the value at path in method's result: "package/project
// /app/description". Each path element is a member name or an index;
// context, when given, says under which circumstance it was read.
func At(method string, path []any, context ...string) string {
	s := method + " " + Pointer(path...)
	if len(context) > 0 {
		s += ", " + strings.Join(context, " ")
	}
	return s
}

// Pointer is the JSON pointer of path: "/entries/0/key"; "" is the whole
// result. A member name escapes "~" and "/" as RFC 6901 says.
func Pointer(path ...any) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteByte('/')
		s := fmt.Sprint(p)
		s = strings.ReplaceAll(s, "~", "~0")
		b.WriteString(strings.ReplaceAll(s, "/", "~1"))
	}
	if b.Len() == 0 {
		return "(the whole result)"
	}
	return b.String()
}

// maxExcerpt is how many characters of an answer a message quotes.
const maxExcerpt = 240

// Excerpt is the beginning of an answer on one line, cut at maxExcerpt
// characters with the count of those left out.
func Excerpt(raw []byte) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if utf8.RuneCountInString(s) <= maxExcerpt {
		return s
	}
	r := []rune(s)
	return fmt.Sprintf("%s… (%d more characters)", string(r[:maxExcerpt]), len(r)-maxExcerpt)
}

// AppIDs lists the ids of app/list's rows: what a message quotes of them.
func AppIDs(apps []protocol.InstalledApp) []string {
	ids := make([]string, 0, len(apps))
	for _, a := range apps {
		ids = append(ids, a.AppID)
	}
	return ids
}
