package waltz

import (
	"strings"
	"testing"
)

func TestAllowHeader(t *testing.T) {
	// RFC 9110 section 10.2.1: Allow is a list of method names; waltz lists
	// each once, sorted, so the header is the same on every run. A mount's
	// any-method entry is not a name and must not show as an empty item.
	for _, tt := range []struct {
		ms          []string
		withOptions bool
		want        string
	}{
		{[]string{"GET", "HEAD"}, false, "GET, HEAD"},
		{[]string{"PUT", "GET", "HEAD", "GET"}, true, "GET, HEAD, OPTIONS, PUT"},
		{[]string{"OPTIONS", "PROPFIND"}, true, "OPTIONS, PROPFIND"},
		{[]string{methodAny, "GET"}, true, "GET, OPTIONS"},
		{nil, true, "OPTIONS"},
	} {
		t.Run(strings.Join(tt.ms, ","), func(t *testing.T) {
			got := allowHeader(tt.ms, tt.withOptions)
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
