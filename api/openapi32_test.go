package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The OpenAPI 3.2 document beside the 3.1 one, from the same
// registrations: the 3.2 document byte for byte, and every difference
// between the two, each one of what 3.2 added.

// TestOpenAPI32Golden holds the 3.2 document of docRouter byte for byte
// (go test -run TestOpenAPI32Golden -update rewrites it).
func TestOpenAPI32Golden(t *testing.T) {
	got := OpenAPI(docRouter(), Info{Title: "Test", Version: "1.2.3", Servers: []string{"https://api.example"}, OpenAPI: "3.2"})
	golden(t, "testdata/openapi-3.2.golden.json", got)
}

// TestOpenAPI32Differences lists every difference between docRouter's
// 3.1 and 3.2 documents, held in testdata/openapi-3.1-to-3.2.diff, and
// checks each is one of what OpenAPI 3.2 added (the rules below, each
// with its section of 3.2.0): nothing else about an operation, a schema
// or a field changes with the version.
func TestOpenAPI32Differences(t *testing.T) {
	info := Info{Title: "Test", Version: "1.2.3"}
	doc31 := OpenAPI(docRouter(), info)
	info.OpenAPI = "3.2"
	doc32 := OpenAPI(docRouter(), info)
	var a, b any
	for _, x := range []struct {
		doc []byte
		to  *any
	}{{doc31, &a}, {doc32, &b}} {
		dec := json.NewDecoder(bytes.NewReader(x.doc))
		dec.UseNumber()
		if err := dec.Decode(x.to); err != nil {
			t.Fatal(err)
		}
	}
	var diffs []jsonDiff
	diffJSON("", a, b, &diffs)
	var lines []string
	for _, d := range diffs {
		lines = append(lines, d.String())
		if why := whatAdded(d, b, diffs); why == "" {
			t.Errorf("%s: not something OpenAPI 3.2 added", d)
		}
	}
	golden(t, "testdata/openapi-3.1-to-3.2.diff", []byte(strings.Join(lines, "\n")+"\n"))
	for _, want := range []string{"~ /openapi", "+ /tags", "+ /paths/~1api~1bookmarks/query", "+ /paths/~1cache/additionalOperations"} {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, want) }) {
			t.Errorf("no difference %q: the documents differ in %q", want, lines)
		}
	}
}

// golden compares got with the file name, or writes it there with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	if *updateGolden {
		if err := os.WriteFile(name, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (rerun with -update after checking the change):\n%s", name, got)
	}
}

// jsonDiff is one difference between two JSON documents: at the JSON
// pointer path, a member added (+), removed (-) or a value changed (~).
type jsonDiff struct {
	op   byte
	path string
	from any
	to   any
}

func (d jsonDiff) String() string {
	switch d.op {
	case '~':
		return fmt.Sprintf("~ %s %s -> %s", d.path, compact(d.from), compact(d.to))
	case '+':
		return "+ " + d.path
	}
	return "- " + d.path
}

// compact writes v as JSON, cut at 80 bytes.
func compact(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// diffJSON appends the differences of a and b at path to ds: objects
// member by member, anything else whole.
func diffJSON(path string, a, b any, ds *[]jsonDiff) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		if !jsonEqual(a, b) {
			*ds = append(*ds, jsonDiff{op: '~', path: path, from: a, to: b})
		}
		return
	}
	keys := slices.Sorted(maps.Keys(am))
	for k := range bm {
		if _, ok := am[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		p := path + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
		av, inA := am[k]
		bv, inB := bm[k]
		switch {
		case !inA:
			*ds = append(*ds, jsonDiff{op: '+', path: p, to: bv})
		case !inB:
			*ds = append(*ds, jsonDiff{op: '-', path: p, from: av})
		default:
			diffJSON(p, av, bv, ds)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// The differences OpenAPI 3.2 accounts for: a pattern of the difference
// as jsonDiff.String writes it (path segments as JSON pointer), and
// where 3.2.0 says so.
var added32 = []struct {
	pattern *regexp.Regexp
	why     string
}{
	{regexp.MustCompile(`^~ /openapi "3\.1\.1" -> "3\.2\.0"$`), "4.1: the version the document follows"},
	{regexp.MustCompile(`^\+ /tags$`), "4.25: the tag hierarchy (parent, kind) of groups and resources"},
	{regexp.MustCompile(`^\+ /paths/[^/]+/query$`), "4.10.1: the QUERY operation's field"},
	{regexp.MustCompile(`^- /paths/[^/]+/description$`), "3.1's note of the QUERY it leaves out (queryNote)"},
	{regexp.MustCompile(`^\+ /paths/[^/]+/additionalOperations$`), "4.10.1: operations of methods with no field of their own"},
	{regexp.MustCompile(`^\+ /paths/[^/]+/[a-z]+/tags$`), "4.25: an operation with no tag of its own carries its group's or resource's"},
	{regexp.MustCompile(`^- /paths/[^/]+/[a-z]+/responses/[0-9]+/content/text~1event-stream/schema$`),
		"4.14.3.1.1: a sequential media type is described item by item (itemSchema), not whole"},
	{regexp.MustCompile(`^\+ /paths/[^/]+/[a-z]+/responses/[0-9]+/content/(text~1event-stream|application~1jsonl)/itemSchema$`),
		"4.14.1: itemSchema"},
	{regexp.MustCompile(`^\+ /components/schemas/[^/]+$`), "a schema of the operations 3.2 added (checked below)"},
}

// whatAdded returns why d is one of what 3.2 added, or "". An added
// component schema must be referred to only from inside what 3.2
// added: an operation under query or additionalOperations; doc32 is
// the 3.2 document, ds every difference.
func whatAdded(d jsonDiff, doc32 any, ds []jsonDiff) string {
	s := d.String()
	for _, a := range added32 {
		if !a.pattern.MatchString(s) {
			continue
		}
		if strings.HasPrefix(d.path, "/components/schemas/") {
			ref := "#" + d.path
			var inAdded, elsewhere bool
			refs("", doc32, ref, func(at string) {
				if slices.ContainsFunc(ds, func(o jsonDiff) bool { return o.op == '+' && strings.HasPrefix(at, o.path+"/") && o.path != d.path }) {
					inAdded = true
				} else {
					elsewhere = true
				}
			})
			if !inAdded || elsewhere {
				return ""
			}
		}
		return a.why
	}
	return ""
}

// refs calls found with the JSON pointer of every "$ref" to ref in v.
func refs(path string, v any, ref string, found func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			p := path + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			if k == "$ref" && e == ref {
				found(p)
			}
			refs(p, e, ref, found)
		}
	case []any:
		for i, e := range x {
			refs(fmt.Sprintf("%s/%d", path, i), e, ref, found)
		}
	}
}

// TestOpenAPIVersion checks the versions Info.OpenAPI names, and that
// any other panics.
func TestOpenAPIVersion(t *testing.T) {
	r := docRouter()
	for _, tc := range []struct{ in, want string }{{"", "3.1.1"}, {"3.1", "3.1.1"}, {"3.2", "3.2.0"}} {
		if got := Describe(r, Info{OpenAPI: tc.in}).OpenAPI; got != tc.want {
			t.Errorf("Info.OpenAPI %q: got %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"3.0", "3.2.0", "3.3", "4"} {
		if msg := panicMessage(func() { Describe(r, Info{OpenAPI: bad}) }); !strings.Contains(msg, "Info.OpenAPI") {
			t.Errorf("Info.OpenAPI %q: got the panic %q", bad, msg)
		}
	}
}
