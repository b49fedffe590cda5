package surface

import (
	"encoding/json"
	"testing"
)

// A getLocale answer names the active tag as itself or as its locale
// member, whatever the case; a default beside it is not read, a list
// names no active one, and another tag in the locale member fails.
func TestNamesLocale(t *testing.T) {
	for _, c := range []struct {
		answer string
		want   bool
	}{
		{`"zh-CN"`, true},
		{`"zh-cn"`, true},
		{`{"locale": "zh-CN"}`, true},
		{`{"activeLocale": "zh-CN", "defaultLocale": "en-US"}`, true},
		{`{"tag": "zh-CN"}`, true},
		{`{"locale": "en-US", "requested": "zh-CN"}`, false},
		{`{"locale": "en-US"}`, false},
		{`{"supported": ["zh-CN", "en-US"]}`, false},
		{`["zh-CN"]`, false},
		{`"en-US"`, false},
		{`null`, false},
	} {
		if got := namesLocale(json.RawMessage(c.answer), "zh-CN"); got != c.want {
			t.Errorf("namesLocale(%s, zh-CN) = %v, want %v", c.answer, got, c.want)
		}
	}
}
