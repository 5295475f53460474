package typed

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/url"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
	"unicode"
	"unicode/utf8"
)

func TestCleanFilename(t *testing.T) {
	for _, tc := range []struct{ cd, want string }{
		{`form-data; name="f"; filename="cat.png"`, "cat.png"},
		{`form-data; name="f"; filename="../../etc/passwd"`, "passwd"},
		{`form-data; name="f"; filename="C:\\Users\\me\\cat.png"`, "cat.png"},
		{`form-data; name="f"; filename*=UTF-8''a%00b%0Ac%7F.png`, "abc.png"},
		{`form-data; name="f"; filename*=UTF-8''%E7%8C%AB.png`, "猫.png"},
		{`form-data; name="f"; filename="..."`, ""},
		{`form-data; name="f"; filename="dir/"`, ""},
		{`form-data; name="f"`, ""},
		{`form-data; name="f"; filename="` + strings.Repeat("a", 300) + `"`, strings.Repeat("a", 255)},
		{`not a disposition;;`, ""},
		// The characters that reorder text: "invoice\u202Efdp.exe" shows
		// as "invoiceexe.pdf".
		{`form-data; name="f"; filename*=UTF-8''invoice%E2%80%AEfdp.exe`, "invoicefdp.exe"},
		{`form-data; name="f"; filename*=UTF-8''%E2%80%AA%E2%80%AB%E2%80%AC%E2%80%AD%E2%81%A6%E2%81%A7%E2%81%A8%E2%81%A9a%E2%80%8E%E2%80%8F%D8%9Cb`, "ab"},
		// Joiners are no reordering: Persian needs U+200C, emoji U+200D.
		{`form-data; name="f"; filename*=UTF-8''%D9%85%DB%8C%E2%80%8C%D8%AE%D9%88%D8%A7%D9%87%D9%85.txt`, "می\u200cخواهم.txt"},
		// White space around the name, and a name that is only that.
		{`form-data; name="f"; filename="  cat.png  "`, "cat.png"},
		{`form-data; name="f"; filename*=UTF-8''%E3%80%80cat%20.png%C2%A0`, "cat .png"},
		{`form-data; name="f"; filename="  "`, ""},
		{`form-data; name="f"; filename=" . . "`, ". ."},
		{`form-data; name="f"; filename*=UTF-8''%E2%80%AE..%E2%80%AE`, ""},
		// Cut at 255 bytes on a character's boundary, then trimmed.
		{`form-data; name="f"; filename*=UTF-8''` + strings.Repeat("a", 253) + `%E7%8C%AB`, strings.Repeat("a", 253)},
		{`form-data; name="f"; filename="` + strings.Repeat("a", 254) + ` b"`, strings.Repeat("a", 254)},
	} {
		if got := cleanFilename(map[string][]string{"Content-Disposition": {tc.cd}}); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.cd, got, tc.want)
		}
	}
}

// FuzzCleanFilename holds what Part.Filename promises of any name a
// client sends, as a filename parameter or as given: valid UTF-8, no
// path separator, control character, bidi control or U+FFFD, no white
// space at either end, at most 255 bytes, not dots alone; and a name
// cleaned once is clean.
func FuzzCleanFilename(f *testing.F) {
	for _, s := range []string{"cat.png", "../../etc/passwd", `C:\Users\me\cat.png`, "a\x00b\nc\x7f.png", "猫.png", "...",
		"dir/", "invoice\u202efdp.exe", "\u2066a\u2069\u200f\u061c.png", "  cat.png \u3000", " . . ", "\u202e..\u202e",
		strings.Repeat("a", 253) + "猫", strings.Repeat("a", 254) + " b", "\xff\xfe.png", "می\u200cخواهم.txt", "\u00a0", "x\u0085y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		check := func(how, got string) {
			t.Helper()
			switch {
			case !utf8.ValidString(got):
				t.Fatalf("%s %q: got %q, invalid UTF-8", how, name, got)
			case len(got) > 255:
				t.Fatalf("%s %q: got %d bytes", how, name, len(got))
			case strings.ContainsAny(got, `/\`):
				t.Fatalf("%s %q: got %q, a path", how, name, got)
			case got != "" && strings.Trim(got, ".") == "":
				t.Fatalf("%s %q: got %q, dots alone", how, name, got)
			case got != strings.TrimSpace(got):
				t.Fatalf("%s %q: got %q, white space around it", how, name, got)
			case cleanName(got) != got:
				t.Fatalf("%s %q: got %q, cleaned again %q", how, name, got, cleanName(got))
			}
			for _, r := range got {
				if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == utf8.RuneError {
					t.Fatalf("%s %q: got %q, holding %U", how, name, got, r)
				}
			}
		}
		check("as given", cleanName(name))
		cd := "form-data; name=\"f\"; filename*=UTF-8''" + url.PathEscape(name)
		check("in a Content-Disposition", cleanFilename(map[string][]string{"Content-Disposition": {cd}}))
		check("as the field itself", cleanFilename(map[string][]string{"Content-Disposition": {name}}))
	})
}

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want int64
		ok   bool
	}{
		{"100", 100, true}, {"2KiB", 2048, true}, {"3MiB", 3 << 20, true}, {"1GiB", 1 << 30, true},
		{"0", 0, false}, {"-1", 0, false}, {"2MB", 0, false}, {"KiB", 0, false}, {"1.5MiB", 0, false},
		{"99999999999GiB", 0, false},
	} {
		if got, ok := parseSize(tc.v); got != tc.want || ok != tc.ok {
			t.Errorf("parseSize(%q): got %d, %v, want %d, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
}

func TestAcceptCheck(t *testing.T) {
	fp := &filePart{name: "f", accept: []string{"image/png", "image/gif", "image/avif", "text/*", "application/json",
		"application/zip", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "image/vnd.microsoft.icon"}}
	for _, tc := range []struct {
		declared, sniffed string
		ok                bool
	}{
		{"image/png", "image/png", true},
		{"", "image/png", true},   // no declared type: the bytes decide
		{"", "image/jpeg", false}, // and must be listed
		// RFC 7578 section 4.4: the type of a file whose type the sender
		// does not know (multipart.Writer.CreateFormFile's): as none.
		{"application/octet-stream", "image/png", true},
		{"application/octet-stream", "image/jpeg", false},
		{"application/octet-stream", "application/octet-stream", false},
		{"image/gif", "image/png", false},   // both listed, but they disagree
		{"image/jpeg", "image/jpeg", false}, // not listed
		{"image/png", "text/plain", false},  // text declared as an image
		{"image/png", "application/octet-stream", false},
		{"image/avif", "application/octet-stream", true}, // the sniffer knows no AVIF
		{"image/avif", "text/plain", false},              // but an AVIF is no text
		{"text/csv", "text/plain", true},                 // nor CSV
		{"application/json", "text/plain", true},
		{"text/csv", "application/pdf", false},                                                               // the sniffer names another type
		{"text/html", "text/plain", false},                                                                   // it would have named HTML
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/zip", true}, // built on a listed type
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/pdf", false},
		// A type taken by a range alone: its bytes must be in the range,
		// or its name would let any bytes through text/*.
		{"text/x-anything", "text/plain", true},
		{"text/x-anything", "application/octet-stream", false},
		{"text/x-anything", "image/png", false},
	} {
		err := fp.check(tc.declared, tc.sniffed)
		var be *BodyError
		if ok := err == nil; ok != tc.ok || err != nil && (!errors.As(err, &be) || be.Status != 415 || be.Part != "f") {
			t.Errorf("declared %q, sniffed %q: got %v, want ok=%v (or a 415 naming the part)", tc.declared, tc.sniffed, err, tc.ok)
		}
	}
}

// TestAcceptRange: a part declared with a media range is refused, with
// or without accept: image/* names no type of content, and passed
// accept:"image/*" whatever its bytes. A type accept takes by a range
// alone must have bytes the range takes; the sniffer's generic answer
// (application/octet-stream) is not in image/*. A malformed type with no
// accept list is a 415 too (it was an index out of range).
func TestAcceptRange(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 32))
	exe := []byte("MZ\x90\x00" + strings.Repeat("\x00", 32))
	images := []string{"image/*"}
	for _, tc := range []struct {
		accept   []string
		declared string
		content  []byte
		want     string // part of the 415's message; "" for none
	}{
		{images, "image/*", exe, `declares the media range "image/*", which is no media type`},
		{images, "image/*", png, "which is no media type"},
		{images, "*/*", png, "which is no media type"},
		{nil, "image/*", png, "which is no media type: it must be a media type such as image/png"},
		{nil, "image/png;;", png, "declares the malformed media type"},
		// mime.ParseMediaType lowers U+0130 to 'i' before it judges the
		// type; no proxy reads this as image/png.
		{images, "\u0130mage/png", png, "declares the malformed media type"},
		{images, "image/png", png, ""},
		{images, "", png, ""},
		{images, "image/x-foo", exe, "is declared \"image/x-foo\" but its bytes are application/octet-stream"},
		{[]string{"image/x-foo"}, "image/x-foo", exe, ""}, // listed by name: its author takes what the sniffer does not know
		{nil, "image/x-foo", exe, ""},
	} {
		fp := &filePart{name: "f", max: 1 << 20, accept: tc.accept}
		var temp Temp
		budget := int64(1 << 20)
		h := map[string][]string{"Content-Type": {tc.declared}, "Content-Disposition": {`form-data; name="f"; filename="a"`}}
		_, err := fp.store(bytes.NewReader(tc.content), h, &budget, &temp)
		var be *BodyError
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v %q: got %v, want it taken", tc.accept, tc.declared, err)
		case tc.want != "" && (!errors.As(err, &be) || be.Status != 415 || !strings.Contains(be.Message, tc.want)):
			t.Errorf("%v %q: got %v, want a 415 with %q", tc.accept, tc.declared, err, tc.want)
		}
	}
}

// TestStore stores parts of several sizes under a memory budget and reads
// them back: in memory while the budget lasts, in a temporary file past
// it, refused past the size limit; Temp.Remove removes every file.
func TestStore(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	var temp Temp
	budget := int64(1000)
	fp := &filePart{name: "f", max: 5000}
	h := map[string][]string{"Content-Disposition": {`form-data; name="f"; filename="x.bin"`}}
	for _, tc := range []struct {
		size   int
		onDisk bool
		budget int64 // left after
	}{
		{100, false, 900},
		{900, false, 0},
		{1, false, -1}, // nothing left, but a part's first 512 bytes are read into memory to be sniffed
		{5000, true, 0},
	} {
		content := bytes.Repeat([]byte{'a'}, tc.size)
		p, err := fp.store(bytes.NewReader(content), h, &budget, &temp)
		if err != nil {
			t.Fatalf("%d bytes: %v", tc.size, err)
		}
		if p.Size != int64(tc.size) || p.Filename != "x.bin" || p.Type != "text/plain" {
			t.Errorf("%d bytes: got size %d, name %q, type %q", tc.size, p.Size, p.Filename, p.Type)
		}
		if got := p.path != ""; got != tc.onDisk && tc.size > sniffLen {
			t.Errorf("%d bytes: on disk %v, want %v", tc.size, got, tc.onDisk)
		}
		if budget != tc.budget && !tc.onDisk {
			t.Errorf("%d bytes: budget left %d, want %d", tc.size, budget, tc.budget)
		}
		f, err := p.Open()
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(f)
		f.Close()
		if !bytes.Equal(got, content) {
			t.Errorf("%d bytes: read back %d bytes, not the content", tc.size, len(got))
		}
	}
	// Read a byte at a time, the part spills before it is found too large.
	if _, err := fp.store(iotest.OneByteReader(bytes.NewReader(make([]byte, 5001))), h, &budget, &temp); err == nil || !strings.Contains(err.Error(), "at most 5000 bytes") {
		t.Errorf("5001 bytes: got %v, want a 413 for the part", err)
	}
	paths := append([]string(nil), temp.paths...)
	if len(paths) != 2 {
		t.Errorf("got %d temporary files, want 2 (one of them for the part refused at 5001 bytes)", len(paths))
	}
	temp.Remove()
	for _, p := range paths {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s: got %v after Remove, want it gone", p, err)
		}
	}
}

// TestStoreUnknownType: a file part declared application/octet-stream,
// the type of a file whose sender does not know it, is taken by its
// bytes where accept does not list that type, and its Type is theirs.
func TestStoreUnknownType(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	h := map[string][]string{
		"Content-Disposition": {`form-data; name="f"; filename="x.png"`},
		"Content-Type":        {"application/octet-stream"},
	}
	for _, tc := range []struct {
		accept []string
		want   string
	}{
		{[]string{"image/png"}, "image/png"},
		{[]string{"image/png", "application/octet-stream"}, "application/octet-stream"}, // listed: as declared
		{nil, "application/octet-stream"},                                               // no accept: as declared
	} {
		var temp Temp
		budget := int64(1000)
		fp := &filePart{name: "f", max: 5000, accept: tc.accept}
		p, err := fp.store(bytes.NewReader(png), h, &budget, &temp)
		if err != nil || p.Type != tc.want {
			t.Errorf("accept %v: got %v, type %v, want type %q", tc.accept, err, p, tc.want)
		}
		temp.Remove()
	}
}

type testFile struct{ p *Part }

func TestMultipartDocument(t *testing.T) {
	type form struct {
		Photo testFile   `json:"photo" accept:"image/png" maxBytes:"1MiB"`
		Scans []testFile `json:"scans,omitempty" accept:"image/*,application/pdf" maxItems:"3" maxBytes:"1000"`
		Note  string     `json:"note,omitempty" maxLength:"10"`
		Meta  struct {
			A int `json:"a"`
		} `json:"meta"`
		Labels map[string]string `json:"labels,omitempty"`
	}
	p, err := PlanIn(reflect.TypeFor[struct{ Body form }](), nil)
	if err != nil {
		t.Fatal(err)
	}
	rb := p.RequestBody(NewSchemas(false))
	got, err := json.Marshal(rb.Content)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		// A file's maxBytes in the extension x-maxBytes and in words.
		`"multipart/form-data":{"schema":{"type":"object","properties":{"photo":{"type":"string","format":"binary",` +
			`"description":"At most 1 MiB (1048576 bytes), or the request is refused with 413.","contentMediaType":"image/png","x-maxBytes":1048576},` +
			`"scans":{"type":"array","description":"Each file at most 1000 bytes, or the request is refused with 413.",` +
			`"items":{"type":"string","format":"binary","x-maxBytes":1000},"maxItems":3},"note":{"type":"string","maxLength":10},"meta":`,
		`"required":["photo","meta"]`,
		// An omitempty map's part takes no null, as the decoder does.
		`"labels":{"type":"object","additionalProperties":{"type":"string"}}`,
		`"encoding":{"labels":{"contentType":"application/json"},"meta":{"contentType":"application/json"},"photo":{"contentType":"image/png"},"scans":{"contentType":"image/*, application/pdf"}}`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("got %s\nwant it to hold %s", got, want)
		}
	}
	if len(rb.Content) != 1 {
		t.Errorf("got %d media types, want multipart/form-data alone", len(rb.Content))
	}
}

// TestCloseWatch: the stream's end is io.EOF when its last line is the
// close delimiter and padding, however the bytes are split into reads,
// and io.ErrUnexpectedEOF otherwise; a line before the last counts for
// nothing (mime/multipart finds its line end, and never the end of the
// stream, after it).
func TestCloseWatch(t *testing.T) {
	for _, tc := range []struct {
		stream string
		want   bool
	}{
		{"--b--", true},
		{"--b-- \t ", true},
		{"preamble\r\n--b--", true},
		{"--b\r\nA: 1\r\n\r\nx\r\n--b--", true},
		{"--b\nA: 1\n\nx\n--b--\t", true},
		{"\n-\n--\n--b\n--b-\n--b--", true},
		{"--b--\r\n", false},
		{"--b--\r", false},
		{"--b-- x", false},
		{"--b--x", false},
		{"x--b--", false},
		{" --b--", false},
		{"--b-", false},
		{"--b--\r\nepilogue", false},
		{"--b\r\nA: 1\r\n\r\nx\n--b--\r\n--b\r\nA: 2", false},
		{"--b\r\nA: 1\n--b--: x", false},
		{"", false},
	} {
		for _, split := range []bool{false, true} {
			var r io.Reader = strings.NewReader(tc.stream)
			if split {
				r = iotest.OneByteReader(r)
			}
			_, err := io.Copy(io.Discard, &closeWatch{r: r, close: "--b--"})
			if want := error(io.ErrUnexpectedEOF); tc.want && err != nil || !tc.want && err != want {
				t.Errorf("%q (one byte a read: %v): got %v, want the close delimiter %v", tc.stream, split, err, tc.want)
			}
		}
	}
}
