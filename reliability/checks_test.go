package reliability

import "testing"

// TestReliabilityChecks holds the suite's own judges to account: a check
// that cannot fail proves nothing.
func TestReliabilityChecks(t *testing.T) {
	for _, row := range []struct {
		loc  string
		want bool
	}{
		{"/users/1", true},
		{"./", true},
		{"evil.com/", true}, // relative: /static/a/evil.com/
		{"http://127.0.0.1/x", true},
		{"//evil.com", false}, // RFC 3986 section 4.2: a network-path reference
		{"//evil.com/", false},
		{`/\evil.com`, false}, // WHATWG URL: a backslash is a slash in http
		{`\\evil.com`, false},
		{"http://evil.com/", false},
		{"https://127.0.0.1.evil.com/", false},
		{"http://evil.com\x00/", false}, // unparseable
	} {
		t.Run(row.loc, func(t *testing.T) {
			if got := onHost(row.loc); got != row.want {
				t.Errorf("onHost(%q): got %v, want %v", row.loc, got, row.want)
			}
		})
	}
	for _, row := range []struct {
		code int
		want string
		ok   bool
	}{
		{404, "404", true},
		{404, "4xx", true},
		{404, "3xx|4xx", true},
		{301, "3xx|4xx", true},
		{500, "4xx", false},
		{500, "3xx|4xx", false},
		{200, "404", false},
		{431, "413", false},
	} {
		if got := statusIn(row.code, row.want); got != row.ok {
			t.Errorf("statusIn(%d, %q): got %v, want %v", row.code, row.want, got, row.ok)
		}
	}
}
