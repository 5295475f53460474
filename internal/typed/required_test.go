package typed

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

type keysDoc struct {
	ID    int               `json:"id"`
	Note  string            `json:"note,omitempty"`
	Must  string            `json:"must,omitempty" required:"true"`
	Kids  []keysDoc         `json:"kids,omitempty"`
	Bykey map[string]keysKV `json:"byKey,omitempty"`
	Ptr   *keysKV           `json:"ptr"`
}

type keysKV struct {
	K string `json:"k"`
}

// scanKeys decodes text as the binder does and returns the required
// members the scan finds absent.
func scanKeys(t testing.TB, text string) []string {
	t.Helper()
	var v keysDoc
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil // the decoder refuses it first
	}
	n := planKeys(reflect.TypeFor[keysDoc](), map[reflect.Type]*keyNode{})
	fs := &failed{}
	b := binder{in: Input{Fails: fs}}
	n.scan(&b, &jscan{s: []byte(text)})
	var got []string
	for _, e := range fs.list {
		got = append(got, e.loc)
	}
	return got
}

func TestKeyScan(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{`{"id":1,"must":"x","ptr":null}`, nil},
		{`{}`, []string{"body.id", "body.must", "body.ptr"}},
		{` { "ID" : 1 , "MUST":"x" , "p\u0074r" : {"k":"v"} } `, nil},
		{`{"id":1,"must":"x","ptr":{}}`, []string{"body.ptr.k"}},
		{`{"id":1,"must":"x","ptr":null,"kids":[{"id":2,"must":"","ptr":null},{"must":"y","ptr":null,"kids":[]}]}`,
			[]string{"body.kids[1].id"}},
		{`{"id":1,"must":"x","ptr":null,"byKey":{"a":{"k":""},"b":{}}}`, []string{"body.byKey.b.k"}},
		{`{"note":"}{][,\"","id":1,"must":"x","ptr":null,"extra":[{"id":[1,{"a":"]"}]}]}`, nil},
		{`null`, nil},
	} {
		if got := scanKeys(t, tc.text); !slices.Equal(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.text, got, tc.want)
		}
	}
}

// FuzzKeyScan holds that the scan never panics or runs off a text the
// decoder takes.
func FuzzKeyScan(f *testing.F) {
	for _, s := range []string{`{}`, `{"kids":[{},{"kids":[{}]}],"byKey":{"x":{}}}`, `{"ptr":{"k":"\"}"}}`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		scanKeys(t, text)
	})
}
