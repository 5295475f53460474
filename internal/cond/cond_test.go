package cond

import (
	"net/http"
	"testing"
	"time"
)

// Dates around lm, the representation's Last-Modified.
var (
	lm     = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	lmMore = lm.Add(500 * time.Millisecond) // sub-second: the field carries lm
	at     = lm.Format(http.TimeFormat)
	before = lm.Add(-time.Hour).Format(http.TimeFormat)
	after  = lm.Add(time.Hour).Format(http.TimeFormat)
)

// TestEvaluate has a row for each outcome of each step of RFC 9110
// section 13.2.2, in its order, and for the comparisons each step uses.
func TestEvaluate(t *testing.T) {
	strong := Validators{ETag: `"a"`, LastModified: lm}
	weak := Validators{ETag: `W/"a"`, LastModified: lm}
	noTag := Validators{LastModified: lm}
	noDate := Validators{ETag: `"a"`}
	for _, tc := range []struct {
		name   string
		method string
		h      http.Header
		v      Validators
		want   Result
	}{
		// Step 1: If-Match, strong comparison (sections 13.1.1, 8.8.3.2).
		{"1 match", "PUT", http.Header{"If-Match": {`"a"`}}, strong, Perform},
		{"1 no match", "PUT", http.Header{"If-Match": {`"b"`}}, strong, Failed},
		{"1 in a list", "PUT", http.Header{"If-Match": {`"x", "a"`}}, strong, Perform},
		{"1 on a second line", "PUT", http.Header{"If-Match": {`"x"`, `"a"`}}, strong, Perform},
		{"1 weak in the field", "PUT", http.Header{"If-Match": {`W/"a"`}}, strong, Failed},
		{"1 weak current tag", "PUT", http.Header{"If-Match": {`"a"`}}, weak, Failed},
		{"1 star", "PUT", http.Header{"If-Match": {"*"}}, strong, Perform},
		{"1 star, no tag", "PUT", http.Header{"If-Match": {"*"}}, noTag, Perform},
		{"1 a tag, none current", "PUT", http.Header{"If-Match": {`"a"`}}, noTag, Failed},
		{"1 malformed", "PUT", http.Header{"If-Match": {`"a", b`}}, strong, Failed},
		{"1 empty", "PUT", http.Header{"If-Match": {""}}, strong, Failed},
		{"1 on GET", "GET", http.Header{"If-Match": {`"b"`}}, strong, Failed},
		{"1 on QUERY", "QUERY", http.Header{"If-Match": {`"b"`}}, strong, Failed},
		{"1 true: If-Unmodified-Since unread", "PUT", http.Header{"If-Match": {`"a"`}, "If-Unmodified-Since": {before}}, strong, Perform},
		{"1 false: If-Unmodified-Since unread", "PUT", http.Header{"If-Match": {`"b"`}, "If-Unmodified-Since": {after}}, strong, Failed},

		// Step 2: If-Unmodified-Since, without If-Match (section 13.1.4).
		{"2 same date", "PUT", http.Header{"If-Unmodified-Since": {at}}, strong, Perform},
		{"2 later", "PUT", http.Header{"If-Unmodified-Since": {after}}, strong, Perform},
		{"2 earlier", "PUT", http.Header{"If-Unmodified-Since": {before}}, strong, Failed},
		{"2 to the second", "PUT", http.Header{"If-Unmodified-Since": {at}}, Validators{LastModified: lmMore}, Perform},
		{"2 not a date", "PUT", http.Header{"If-Unmodified-Since": {"yesterday"}}, strong, Perform},
		{"2 two lines", "PUT", http.Header{"If-Unmodified-Since": {before, before}}, strong, Perform},
		{"2 a list", "PUT", http.Header{"If-Unmodified-Since": {before + ", " + before}}, strong, Perform},
		{"2 no Last-Modified", "PUT", http.Header{"If-Unmodified-Since": {before}}, noDate, Perform},
		{"2 on GET", "GET", http.Header{"If-Unmodified-Since": {before}}, strong, Failed},

		// Step 3: If-None-Match, weak comparison (section 13.1.2).
		{"3 match GET", "GET", http.Header{"If-None-Match": {`"a"`}}, strong, NotModified},
		{"3 match HEAD", "HEAD", http.Header{"If-None-Match": {`"a"`}}, strong, NotModified},
		{"3 match PUT", "PUT", http.Header{"If-None-Match": {`"a"`}}, strong, Failed},
		{"3 match POST", "POST", http.Header{"If-None-Match": {`"a"`}}, strong, Failed},
		{"3 match QUERY (RFC 10008 section 2.6)", "QUERY", http.Header{"If-None-Match": {`"a"`}}, strong, NotModified},
		{"3 no match QUERY", "QUERY", http.Header{"If-None-Match": {`"b"`}}, strong, Perform},
		{"3 weak in the field", "GET", http.Header{"If-None-Match": {`W/"a"`}}, strong, NotModified},
		{"3 weak current tag", "GET", http.Header{"If-None-Match": {`"a"`}}, weak, NotModified},
		{"3 on a second line", "GET", http.Header{"If-None-Match": {`"x"`, `"a"`}}, strong, NotModified},
		{"3 star GET", "GET", http.Header{"If-None-Match": {"*"}}, strong, NotModified},
		{"3 star PUT", "PUT", http.Header{"If-None-Match": {"*"}}, noTag, Failed},
		{"3 no match", "GET", http.Header{"If-None-Match": {`"b"`}}, strong, Perform},
		{"3 a tag, none current", "GET", http.Header{"If-None-Match": {`"a"`}}, noTag, Perform},
		{"3 malformed", "GET", http.Header{"If-None-Match": {`"a" x`}}, strong, Perform},
		{"3 true: If-Modified-Since unread", "GET", http.Header{"If-None-Match": {`"b"`}, "If-Modified-Since": {after}}, strong, Perform},
		{"3 after a true 1", "GET", http.Header{"If-Match": {`"a"`}, "If-None-Match": {`"a"`}}, strong, NotModified},
		{"3 after a false 1", "GET", http.Header{"If-Match": {`"b"`}, "If-None-Match": {`"a"`}}, strong, Failed},
		{"3 after a false 2", "GET", http.Header{"If-Unmodified-Since": {before}, "If-None-Match": {`"a"`}}, strong, Failed},

		// Step 4: If-Modified-Since, GET and HEAD, without If-None-Match
		// (section 13.1.3).
		{"4 same date", "GET", http.Header{"If-Modified-Since": {at}}, strong, NotModified},
		{"4 later", "HEAD", http.Header{"If-Modified-Since": {after}}, strong, NotModified},
		{"4 earlier", "GET", http.Header{"If-Modified-Since": {before}}, strong, Perform},
		{"4 to the second", "GET", http.Header{"If-Modified-Since": {at}}, Validators{LastModified: lmMore}, NotModified},
		{"4 not a date", "GET", http.Header{"If-Modified-Since": {"yesterday"}}, strong, Perform},
		{"4 two lines", "GET", http.Header{"If-Modified-Since": {after, after}}, strong, Perform},
		{"4 no Last-Modified", "GET", http.Header{"If-Modified-Since": {after}}, noDate, Perform},
		{"4 on PUT", "PUT", http.Header{"If-Modified-Since": {after}}, strong, Perform},
		{"4 on POST", "POST", http.Header{"If-Modified-Since": {after}}, strong, Perform},
		{"4 on QUERY", "QUERY", http.Header{"If-Modified-Since": {after}}, strong, NotModified},
		{"4 on QUERY, earlier", "QUERY", http.Header{"If-Modified-Since": {before}}, strong, Perform},
		{"4 after a false 2", "GET", http.Header{"If-Unmodified-Since": {before}, "If-Modified-Since": {after}}, strong, Failed},

		// Step 5: If-Range, GET with Range (section 13.1.5).
		{"5 tag", "GET", http.Header{"Range": {"bytes=0-1"}, "If-Range": {`"a"`}}, strong, Perform},
		{"5 another tag", "GET", http.Header{"Range": {"bytes=0-1"}, "If-Range": {`"b"`}}, strong, Whole},
		{"5 weak in the field", "GET", http.Header{"Range": {"bytes=0-1"}, "If-Range": {`W/"a"`}}, strong, Whole},
		{"5 a date after a no-break space", "GET", http.Header{"Range": {"bytes=0-1"}, "If-Range": {"\u00a0" + strong.LastModified.UTC().Format(http.TimeFormat)}}, strong, Whole},
		{"5 weak current tag", "GET", http.Header{"Range": {"bytes=0-1"}, "If-Range": {`"a"`}}, weak, Whole},
		{"5 a list", "GET", http.Header{"Range": {"bytes=0-1"}, "If-Range": {`"a", "a"`}}, strong, Whole},
		{"5 two lines", "GET", http.Header{"Range": {"bytes=0-1"}, "If-Range": {`"a"`, `"a"`}}, strong, Whole},
		{"5 star", "GET", http.Header{"Range": {"bytes=0-1"}, "If-Range": {"*"}}, strong, Whole},
		{"5 date", "GET", http.Header{"Range": {"bytes=0-1"}, "If-Range": {at}}, strong, Perform},
		{"5 date to the second", "GET", http.Header{"Range": {"bytes=0-1"}, "If-Range": {at}}, Validators{LastModified: lmMore}, Perform},
		{"5 later date", "GET", http.Header{"Range": {"bytes=0-1"}, "If-Range": {after}}, strong, Whole},
		{"5 date, no Last-Modified", "GET", http.Header{"Range": {"bytes=0-1"}, "If-Range": {at}}, noDate, Whole},
		{"5 neither", "GET", http.Header{"Range": {"bytes=0-1"}, "If-Range": {"soon"}}, strong, Whole},
		{"5 no Range", "GET", http.Header{"If-Range": {`"b"`}}, strong, Perform},
		{"5 Range alone", "GET", http.Header{"Range": {"bytes=0-1"}}, strong, Perform},
		{"5 QUERY (RFC 10008 section 2.8)", "QUERY", http.Header{"Range": {"bytes=0-1"}, "If-Range": {`"b"`}}, strong, Whole},
		{"5 HEAD", "HEAD", http.Header{"Range": {"bytes=0-1"}, "If-Range": {`"b"`}}, strong, Perform},
		{"5 after a true 3", "GET", http.Header{"If-None-Match": {`"b"`}, "Range": {"bytes=0-1"}, "If-Range": {`"b"`}}, strong, Whole},
		{"5 after a true 4", "GET", http.Header{"If-Modified-Since": {before}, "Range": {"bytes=0-1"}, "If-Range": {at}}, strong, Perform},
		{"5 after a false 3", "GET", http.Header{"If-None-Match": {`"a"`}, "Range": {"bytes=0-1"}, "If-Range": {`"a"`}}, strong, NotModified},

		// Step 6: nothing to judge.
		{"6 GET", "GET", http.Header{}, strong, Perform},
		{"6 DELETE", "DELETE", http.Header{"Accept": {"*/*"}}, strong, Perform},
		{"6 no validators", "GET", http.Header{"If-Modified-Since": {after}, "If-Unmodified-Since": {before}}, Validators{}, Perform},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Evaluate(tc.h, tc.method, tc.v); got != tc.want {
				t.Errorf("%s %v with %+v: got %v, want %v", tc.method, tc.h, tc.v, got, tc.want)
			}
		})
	}
}

// TestEvaluateUnsettled: a date equal to a Last-Modified whose second
// has not ended may name an earlier version of that second (RFC 9110
// section 8.8.2.2), so it is answered as a changed representation's date;
// dates of other seconds are sure. The modification time is an hour
// ahead, a second that has not ended whenever the test runs.
func TestEvaluateUnsettled(t *testing.T) {
	soon := time.Now().Add(time.Hour).Truncate(time.Second)
	v := Validators{LastModified: soon.Add(300 * time.Millisecond)}
	same := soon.Format(http.TimeFormat)
	earlier := soon.Add(-time.Second).Format(http.TimeFormat)
	later := soon.Add(time.Second).Format(http.TimeFormat)
	rng := func(ir string) http.Header { return http.Header{"Range": {"bytes=0-1"}, "If-Range": {ir}} }
	for _, tc := range []struct {
		name   string
		method string
		h      http.Header
		want   Result
	}{
		{"If-Range same second", "GET", rng(same), Whole},
		{"If-Range earlier", "GET", rng(earlier), Whole},
		{"If-Unmodified-Since same second", "PUT", http.Header{"If-Unmodified-Since": {same}}, Failed},
		{"If-Unmodified-Since earlier", "PUT", http.Header{"If-Unmodified-Since": {earlier}}, Failed},
		{"If-Unmodified-Since later", "PUT", http.Header{"If-Unmodified-Since": {later}}, Perform},
		{"If-Modified-Since same second", "GET", http.Header{"If-Modified-Since": {same}}, Perform},
		{"If-Modified-Since later", "GET", http.Header{"If-Modified-Since": {later}}, NotModified},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Evaluate(tc.h, tc.method, v); got != tc.want {
				t.Errorf("%s %v: got %v, want %v", tc.method, tc.h, got, tc.want)
			}
		})
	}
}

func TestSettled(t *testing.T) {
	for _, tc := range []struct {
		mod, now time.Time
		want     bool
	}{
		{lm, lm, false},
		{lmMore, lm.Add(999 * time.Millisecond), false},
		{lmMore, lm.Add(time.Second), false}, // the margin: a file system's clock may lag
		{lmMore, lm.Add(time.Second + SettleMargin), true},
		{lm, lm.Add(time.Hour), true},
		{lm.Add(time.Hour), lm, false}, // the future
	} {
		if got := Settled(tc.mod, tc.now); got != tc.want {
			t.Errorf("Settled(%v, %v): got %v, want %v", tc.mod, tc.now, got, tc.want)
		}
	}
}

func TestDate(t *testing.T) {
	for _, tc := range []struct {
		lines []string
		ok    bool
	}{
		{nil, false},
		{[]string{at}, true},
		{[]string{"Sunday, 01-Mar-26 10:00:00 GMT"}, true}, // RFC 850's form, section 5.6.7
		{[]string{"Sun Mar  1 10:00:00 2026"}, true},       // asctime's
		{[]string{at, at}, false},
		{[]string{""}, false},
		{[]string{"1772359200"}, false},
	} {
		got, ok := Date(http.Header{"If-Modified-Since": tc.lines}, "If-Modified-Since")
		if ok != tc.ok || ok && !got.Equal(lm) {
			t.Errorf("%q: got %v %v, want %v", tc.lines, got, ok, tc.ok)
		}
	}
}

func TestEvaluateAllocs(t *testing.T) {
	h := http.Header{"If-Match": {`"x", "a"`}, "If-None-Match": {`W/"b"`}, "If-Modified-Since": {at}, "Range": {"bytes=0-1"}, "If-Range": {at}}
	v := Validators{ETag: `"a"`, LastModified: lm}
	if got := testing.AllocsPerRun(100, func() { Evaluate(h, http.MethodGet, v) }); got != 0 {
		t.Errorf("got %v allocations, want 0", got)
	}
}

func FuzzEvaluate(f *testing.F) {
	f.Add("GET", `"a"`, `W/"a"`, at, before, "bytes=0-1", `"a"`, `"a"`)
	f.Fuzz(func(t *testing.T, method, im, inm, ims, ius, rng, ir, tag string) {
		h := http.Header{}
		for k, v := range map[string]string{"If-Match": im, "If-None-Match": inm, "If-Modified-Since": ims, "If-Unmodified-Since": ius, "Range": rng, "If-Range": ir} {
			if v != "" {
				h[k] = []string{v}
			}
		}
		got := Evaluate(h, method, Validators{ETag: tag, LastModified: lm})
		safe := method == http.MethodGet || method == http.MethodHead
		if got == NotModified && !safe || got == Whole && method != http.MethodGet || got > Failed {
			t.Errorf("%s %v: got %v", method, h, got)
		}
	})
}
