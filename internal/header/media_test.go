package header

import (
	"strings"
	"testing"
)

func TestMediaWeight(t *testing.T) {
	const u = Unlisted
	for _, tc := range []struct {
		lines    []string
		typ, sub string
		want     int
	}{
		{nil, "application", "json", u},
		{[]string{"application/json"}, "application", "json", 1000},
		{[]string{"Application/JSON;q=0.4"}, "application", "json", 400},
		{[]string{"text/html"}, "application", "json", u},
		// The most specific range decides, whatever the order and weights.
		{[]string{"application/json;q=0.2, */*"}, "application", "json", 200},
		{[]string{"*/*;q=0.1, application/*;q=0.6"}, "application", "xml", 600},
		{[]string{"*/*;q=0.3"}, "text", "plain", 300},
		{[]string{"application/json;q=0.2", "application/json;q=0.7"}, "application", "json", 700},
		// Parameters other than q are not compared.
		{[]string{"application/json;charset=utf-8;q=0.5"}, "application", "json", 500},
		// Malformed elements are skipped.
		{[]string{"application/json;q=2"}, "application", "json", u},
		{[]string{"application/json;q=2, */*;q=0.1"}, "application", "json", 100},
		{[]string{"json, /, application/, /json, application/json;q=0.9"}, "application", "json", 900},
		{[]string{strings.Repeat(",", 8<<10) + "application/json"}, "application", "json", 1000},
	} {
		if got := MediaWeight(tc.lines, tc.typ, tc.sub); got != tc.want {
			t.Errorf("MediaWeight(%q, %s/%s): got %d, want %d", tc.lines, tc.typ, tc.sub, got, tc.want)
		}
	}
}

func TestAccept(t *testing.T) {
	offers := []string{"application/json", "application/xml", "text/plain"}
	for _, tc := range []struct {
		lines []string
		want  int
	}{
		{nil, 0},
		{[]string{""}, 0},
		{[]string{"*/*"}, 0},
		{[]string{"application/xml"}, 1},
		{[]string{"application/xml, application/json"}, 0}, // a tie: the server's order
		{[]string{"application/json;q=0.5, application/xml"}, 1},
		{[]string{"text/*"}, 2},
		{[]string{"application/*;q=0.1, text/plain;q=0.2"}, 2},
		{[]string{"image/png"}, -1},
		{[]string{"*/*;q=0"}, -1},
		{[]string{"application/json;q=0, */*"}, 1},
		// Every element malformed: as if no field was sent.
		{[]string{"application/xml;q=1.5"}, 0},
		{[]string{"text/plain;q=-1, ,,"}, 0},
		// A malformed element beside a good one: the good one decides.
		{[]string{"application/json;q=9, image/png"}, -1},
		{[]string{"application/json;q=0.0001, text/plain"}, 2},
		{[]string{strings.Repeat("image/png;q=0.5, ", 500) + "application/xml"}, 1},
	} {
		if got := Accept(tc.lines, offers); got != tc.want {
			t.Errorf("Accept(%.60q): got %d, want %d", tc.lines, got, tc.want)
		}
	}
}

func TestAcceptNoAllocs(t *testing.T) {
	lines := []string{`application/xml;q=0.5, application/json;x="a,b", */*;q=0.1`}
	offers := []string{"application/json", "application/xml"}
	if got := testing.AllocsPerRun(100, func() { Accept(lines, offers) }); got != 0 {
		t.Errorf("Accept: got %v allocs, want 0", got)
	}
}

func FuzzAccept(f *testing.F) {
	f.Add("application/json;q=0.5, */*;q=0.1")
	f.Add(`text/*;x="a,\"b";q=1.000, ,;`)
	offers := []string{"application/json", "text/plain"}
	f.Fuzz(func(t *testing.T, line string) {
		i := Accept([]string{line}, offers)
		if i < -1 || i >= len(offers) {
			t.Fatalf("Accept(%q): index %d", line, i)
		}
		for _, o := range offers {
			typ, sub, _ := strings.Cut(o, "/")
			if w := MediaWeight([]string{line}, typ, sub); w != Unlisted && (w < 0 || w > 1000) {
				t.Fatalf("MediaWeight(%q, %s): %d outside 0..1000", line, o, w)
			}
		}
	})
}
