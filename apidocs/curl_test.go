package apidocs

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waltz-go/waltz/openapi"
)

func TestWord(t *testing.T) {
	for _, tc := range []struct {
		name   string
		pieces []piece
		want   string
	}{
		{"literal", []piece{lit("/a/b?c=1&d=2")}, `'/a/b?c=1&d=2'`},
		{"a single quote", []piece{lit("it's")}, `'it'\''s'`},
		{"a variable", []piece{vari("API"), lit("/a")}, `"$API/a"`},
		{"a name after the variable", []piece{vari("API"), lit("x")}, `"${API}x"`},
		{"two variables", []piece{vari("USERNAME"), lit(":"), vari("PASSWORD")}, `"$USERNAME:$PASSWORD"`},
		{"a dollar beside a variable", []piece{vari("API"), lit("/$HOME")}, `"$API"'/$HOME'`},
		{"a backtick beside a variable", []piece{lit("a`b"), vari("T")}, `'a` + "`" + `b'"$T"`},
		{"a double quote beside a variable", []piece{lit(`X: "`), vari("T")}, `'X: "'"$T"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := word(tc.pieces...); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestWordShell has a POSIX shell read each word back: it must be the
// literal text with the variables' values in their places.
func TestWordShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, text := range []string{"/a", "it's", `a"b`, "$HOME", "`id`", `\n`, "!x", "a b", "x'y\"z$w"} {
		for _, ps := range [][]piece{{lit(text)}, {vari("V"), lit(text)}, {lit(text), vari("V")}} {
			w := word(ps...)
			var want strings.Builder
			for _, p := range ps {
				if p.isVar {
					want.WriteString("<v>")
				} else {
					want.WriteString(p.text)
				}
			}
			cmd := exec.Command(sh, "-c", "printf %s "+w)
			cmd.Env = []string{"V=<v>"}
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("sh -c 'printf %%s %s': %v", w, err)
			}
			if string(out) != want.String() {
				t.Errorf("%s reads back as %q, want %q", w, out, want.String())
			}
		}
	}
}

func TestCurl(t *testing.T) {
	str := &openapi.Schema{Type: "string"}
	num := &openapi.Schema{Type: "integer", Minimum: numberOf("1")}
	jsonBody := &openapi.RequestBody{Content: map[string]*openapi.MediaType{
		"application/json":                  {Schema: schemaOf(t, `{"type":"object","properties":{"title":{"type":"string","examples":["it's"]}},"required":["title"]}`)},
		"application/x-www-form-urlencoded": {Schema: schemaOf(t, `{"type":"object"}`)},
	}}
	formBody := &openapi.RequestBody{Content: map[string]*openapi.MediaType{
		"application/x-www-form-urlencoded": {Schema: schemaOf(t, `{"type":"object","properties":{"q":{"type":"string","examples":["a b&c"]}}}`)},
	}}
	multipart := &openapi.RequestBody{Content: map[string]*openapi.MediaType{
		"multipart/form-data": {Schema: schemaOf(t, `{"type":"object","properties":{"name":{"type":"string"},"file":{"type":"string","format":"binary"}},"required":["name","file"]}`)},
	}}
	arrays := &openapi.RequestBody{Content: map[string]*openapi.MediaType{
		"multipart/form-data": {Schema: schemaOf(t, `{"type":"object","properties":{"tag":{"type":"array","items":{"type":"string"},"examples":[["a","b"]]},`+
			`"file":{"type":"string","format":"binary"}},"required":["file"]}`)},
	}}
	formArrays := &openapi.RequestBody{Content: map[string]*openapi.MediaType{
		"application/x-www-form-urlencoded": {Schema: schemaOf(t, `{"type":"object","properties":{"tag":{"type":"array","items":{"type":"string"},"examples":[["a","b&c"]]}}}`)},
	}}
	strs := &openapi.Schema{Type: "array", Items: str}
	no := false
	api := []piece{vari("API")}
	for _, tc := range []struct {
		name string
		c    curl
		want string
	}{
		{"GET", curl{method: "GET", base: api, path: "/a"}, `curl -i "$API/a"`},
		{"HEAD", curl{method: "HEAD", base: api, path: "/a"}, `curl -I "$API/a"`},
		{"an absolute server", curl{method: "DELETE", base: []piece{lit("https://api.example.com/v1")}, path: "/a"},
			`curl -i -X DELETE 'https://api.example.com/v1/a'`},
		{"path param escaped", curl{method: "GET", base: api, path: "/files/{name}",
			params: []*openapi.Parameter{{Name: "name", In: "path", Required: true, Example: "a b/c"}}}, `curl -i "$API/files/a%20b%2Fc"`},
		{"path param from its schema", curl{method: "GET", base: api, path: "/n/{id}",
			params: []*openapi.Parameter{{Name: "id", In: "path", Required: true, Schema: num}}}, `curl -i "$API/n/1"`},
		{"query: required and exampled ones only", curl{method: "GET", base: api, path: "/s", params: []*openapi.Parameter{
			{Name: "q", In: "query", Required: true, Schema: str},
			{Name: "skip", In: "query", Schema: num},
			{Name: "sort", In: "query", Example: "new&old"},
		}}, `curl -i "$API/s?q=string&sort=new%26old"`},
		{"an array query param, exploded and not", curl{method: "GET", base: api, path: "/s", params: []*openapi.Parameter{
			{Name: "tag", In: "query", Example: []any{"a b", "c&d"}, Schema: strs},
			{Name: "not", In: "query", Style: "form", Explode: &no, Example: "x,y z", Schema: strs},
			{Name: "only", In: "query", Style: "form", Explode: &no, Example: []any{"1,2", "3"}, Schema: strs},
		}}, `curl -i "$API/s?tag=a+b&tag=c%26d&not=x,y+z&only=1%2C2,3"`},
		{"header and cookie", curl{method: "GET", base: api, path: "/h", params: []*openapi.Parameter{
			{Name: "X-Trace", In: "header", Required: true, Schema: str},
			{Name: "s", In: "cookie", Example: "1"},
			{Name: "t", In: "cookie", Required: true, Schema: str},
		}}, "curl -i \"$API/h\" \\\n    -H 'X-Trace: string' \\\n    -b 's=1; t=string'"},
		{"bearer", curl{method: "POST", base: api, path: "/b", creds: []credential{
			{place: "header", name: "Authorization", value: []piece{lit("Bearer "), vari("TOKEN")}}}},
			"curl -i -X POST \"$API/b\" \\\n    -H \"Authorization: Bearer $TOKEN\""},
		{"basic", curl{method: "GET", base: api, path: "/b", creds: []credential{
			{place: "user", value: []piece{vari("USERNAME"), lit(":"), vari("PASSWORD")}}}},
			"curl -i \"$API/b\" \\\n    -u \"$USERNAME:$PASSWORD\""},
		{"API key in the query", curl{method: "GET", base: api, path: "/k", creds: []credential{
			{place: "query", name: "key", value: []piece{vari("API_KEY")}}}},
			`curl -i "$API/k?key=$API_KEY"`},
		{"API key in a cookie", curl{method: "GET", base: api, path: "/k", creds: []credential{
			{place: "cookie", name: "key", value: []piece{vari("API_KEY")}}}},
			"curl -i \"$API/k\" \\\n    -b \"key=$API_KEY\""},
		{"JSON before a form", curl{method: "POST", base: api, path: "/j", body: jsonBody},
			"curl -i -X POST \"$API/j\" \\\n    -H 'Content-Type: application/json' \\\n    -d '{\"title\":\"it'\\''s\"}'"},
		{"a form", curl{method: "PUT", base: api, path: "/f", body: formBody},
			"curl -i -X PUT \"$API/f\" \\\n    --data-urlencode 'q=a b&c'"},
		{"multipart, a file", curl{method: "POST", base: api, path: "/u", body: multipart},
			"curl -i -X POST \"$API/u\" \\\n    --form-string 'name=string' \\\n    -F 'file=@file'"},
		{"multipart, an array", curl{method: "POST", base: api, path: "/u", body: arrays},
			"curl -i -X POST \"$API/u\" \\\n    --form-string 'tag=a' \\\n    --form-string 'tag=b' \\\n    -F 'file=@file'"},
		{"a form, an array", curl{method: "POST", base: api, path: "/f", body: formArrays},
			"curl -i -X POST \"$API/f\" \\\n    --data-urlencode 'tag=a' \\\n    --data-urlencode 'tag=b&c'"},
		{"another media type", curl{method: "POST", base: api, path: "/o", body: &openapi.RequestBody{Content: map[string]*openapi.MediaType{"text/csv": {}}}},
			"curl -i -X POST \"$API/o\" \\\n    -H 'Content-Type: text/csv' \\\n    --data-binary @body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.c.ex.request = true
			if got := tc.c.line(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestCurlMultipart has curl send the multipart line of a body whose
// text members' examples hold what -F reads as a file to upload (a
// leading @ or <) or as the part's headers (;type=): the server must get
// each as it is written.
func TestCurlMultipart(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	texts := map[string]string{"at": "@etc/passwd", "lt": "<file", "type": "x;type=text/html", "quote": `a "b",c`}
	body := &openapi.RequestBody{Content: map[string]*openapi.MediaType{
		"multipart/form-data": {Schema: schemaOf(t, `{"type":"object","properties":{`+
			`"at":{"type":"string","examples":["@etc/passwd"]},"lt":{"type":"string","examples":["<file"]},`+
			`"type":{"type":"string","examples":["x;type=text/html"]},"quote":{"type":"string","examples":["a \"b\",c"]},`+
			`"file":{"type":"string","format":"binary"}},"required":["at","lt","type","quote","file"]}`)},
	}}
	got := map[string]string{}
	var file string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			t.Errorf("the server reads no multipart form: %v", err)
			return
		}
		for name := range texts {
			got[name] = r.FormValue(name)
		}
		if f, _, err := r.FormFile("file"); err == nil {
			b, _ := io.ReadAll(f)
			file = string(b)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("the file"), 0o644); err != nil {
		t.Fatal(err)
	}
	line := curl{method: "POST", base: []piece{vari("API")}, path: "/u", body: body, ex: exampler{request: true}}.line()
	cmd := exec.Command(sh, "-c", line+" -s -o /dev/null")
	cmd.Dir, cmd.Env = dir, []string{"API=" + srv.URL, "PATH=" + os.Getenv("PATH")}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s\n%v: %s", line, err, out)
	}
	for name, want := range texts {
		if got[name] != want {
			t.Errorf("member %s: the server got %q, want %q\n%s", name, got[name], want, line)
		}
	}
	if file != "the file" {
		t.Errorf("the file part: the server got %q, want %q\n%s", file, "the file", line)
	}
}

func TestCredentials(t *testing.T) {
	schemes := map[string]*openapi.SecurityScheme{
		"bearer": {Type: "http", Scheme: "bearer"},
		"basic":  {Type: "http", Scheme: "Basic"},
		"digest": {Type: "http", Scheme: "Digest"},
		"key":    {Type: "apiKey", In: "header", Name: "X-Key"},
		"oauth":  {Type: "oauth2"},
	}
	for _, tc := range []struct {
		name, want string
	}{
		{"bearer", `header Authorization: "Bearer $TOKEN"`},
		{"basic", `user : "$USERNAME:$PASSWORD"`},
		{"digest", `header Authorization: "Digest $CREDENTIALS"`},
		{"key", `header X-Key: "$API_KEY"`},
		{"oauth", `header Authorization: "Bearer $TOKEN"`},
		{"unknown", ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, c := range credentials(map[string][]string{tc.name: {}}, schemes) {
				got = append(got, c.place+" "+c.name+": "+word(c.value...))
			}
			if g := strings.Join(got, ","); g != tc.want {
				t.Errorf("got %s, want %s", g, tc.want)
			}
		})
	}
}

func numberOf(s string) *json.Number {
	n := json.Number(s)
	return &n
}
