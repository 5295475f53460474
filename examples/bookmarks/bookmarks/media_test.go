package bookmarks

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// get sends a GET (or HEAD) to base+target with the header fields given
// as name, value pairs.
func get(t testing.TB, method, url string, header ...string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{res.StatusCode, res.Header, string(b)}
}

// TestReadsNegotiated: a read in XML or JSON, as Accept asks; 406 for a
// type the API does not answer in.
func TestReadsNegotiated(t *testing.T) {
	srv := httptest.NewServer(New(NewStore(), testToken))
	defer srv.Close()
	call(t, srv.URL, "POST", "/api/bookmarks", testToken, `{"url":"https://go.dev/","title":"Go","tags":["go","web"]}`)
	a := get(t, "GET", srv.URL+"/api/bookmarks/1", "Accept", "application/xml")
	var b Bookmark
	if err := xml.Unmarshal([]byte(a.body), &b); err != nil || a.code != 200 {
		t.Fatalf("XML: got %d %s, %v", a.code, a.body, err)
	}
	if b.ID != 1 || b.URL != "https://go.dev/" || len(b.Tags) != 2 || a.header.Get("Vary") != "Accept" {
		t.Errorf("XML: got %+v Vary %q, want bookmark 1 with two tags and Vary: Accept", b, a.header.Get("Vary"))
	}
	a = get(t, "GET", srv.URL+"/api/bookmarks", "Accept", "application/json, application/xml;q=0.5")
	var p Page
	if err := json.Unmarshal([]byte(a.body), &p); err != nil || p.Total != 1 {
		t.Errorf("JSON list: got %s, %v", a.body, err)
	}
	a = get(t, "GET", srv.URL+"/api/bookmarks", "Accept", "text/csv, application/problem+json;q=0.1")
	if pr, _ := readProblem(t, a); a.code != 406 || !strings.Contains(pr.Detail, "application/xml") {
		t.Errorf("CSV: got %d %s, want 406 listing the types", a.code, a.body)
	}
}

// TestPicture: the picture download, whole, in ranges, revalidated and
// by HEAD.
func TestPicture(t *testing.T) {
	srv := httptest.NewServer(New(NewStore(), testToken))
	defer srv.Close()
	call(t, srv.URL, "POST", "/api/bookmarks", testToken, `{"url":"https://go.dev/","title":"Go"}`)
	// Its Last-Modified is sent once its second has ended (RFC 9110
	// section 8.8.2.2).
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 100*time.Millisecond))) // past the second and its margin (cond.SettleMargin)
	url := srv.URL + "/api/bookmarks/1/image"
	whole := get(t, "GET", url)
	if whole.code != 200 || whole.header.Get("Content-Type") != "image/png" {
		t.Fatalf("got %d %q, want 200 image/png", whole.code, whole.header.Get("Content-Type"))
	}
	if img, err := png.Decode(strings.NewReader(whole.body)); err != nil || img.Bounds().Dx() != pictureSide {
		t.Fatalf("the picture: %v", err)
	}
	size := strconv.Itoa(len(whole.body))
	lastMod := whole.header.Get("Last-Modified")
	for _, tc := range []struct {
		name, method string
		header       []string
		code         int
		body         string
		contentRange string
	}{
		{"first bytes", "GET", []string{"Range", "bytes=0-7"}, 206, whole.body[:8], "bytes 0-7/" + size},
		{"if-range, same", "GET", []string{"Range", "bytes=0-7", "If-Range", lastMod}, 206, whole.body[:8], "bytes 0-7/" + size},
		{"if-range, older", "GET", []string{"Range", "bytes=0-7", "If-Range", "Mon, 02 Jan 2006 15:04:05 GMT"}, 200, whole.body, ""},
		{"past the end", "GET", []string{"Range", "bytes=100000-"}, 416, "", "bytes */" + size},
		{"not modified", "GET", []string{"If-Modified-Since", lastMod}, 304, "", ""},
		{"head", "HEAD", nil, 200, "", ""},
		{"not acceptable", "GET", []string{"Accept", "image/avif"}, 406, "", ""},
	} {
		a := get(t, tc.method, url, tc.header...)
		if a.code != tc.code || tc.body != "" && a.body != tc.body || a.header.Get("Content-Range") != tc.contentRange {
			t.Errorf("%s: got %d Content-Range %q, body of %d bytes; want %d %q, %d bytes",
				tc.name, a.code, a.header.Get("Content-Range"), len(a.body), tc.code, tc.contentRange, len(tc.body))
		}
	}
	if a := get(t, "GET", srv.URL+"/api/bookmarks/9/image"); a.code != 404 {
		t.Errorf("no such bookmark: got %d, want 404", a.code)
	}
}

// TestPictureUploaded: once an image is uploaded, the download is its
// bytes in its type.
func TestPictureUploaded(t *testing.T) {
	store := NewStore()
	srv := httptest.NewServer(New(store, testToken))
	defer srv.Close()
	call(t, srv.URL, "POST", "/api/bookmarks", testToken, `{"url":"https://go.dev/","title":"Go"}`)
	gif := "GIF89a\x01\x00\x01\x00\x00\x00\x00;"
	if _, ok := store.SetImage(1, Image{ImageInfo{Type: "image/gif", Size: int64(len(gif))}, []byte(gif)}); !ok {
		t.Fatal("SetImage: no bookmark 1")
	}
	a := get(t, "GET", srv.URL+"/api/bookmarks/1/image")
	if a.code != 200 || a.header.Get("Content-Type") != "image/gif" || a.body != gif {
		t.Errorf("got %d %q %q, want 200 image/gif and the uploaded bytes", a.code, a.header.Get("Content-Type"), a.body)
	}
	if a := get(t, "GET", srv.URL+"/api/bookmarks/1/image", "Range", "bytes=0-5"); a.code != 206 || a.body != "GIF89a" {
		t.Errorf("a range: got %d %q, want 206 GIF89a", a.code, a.body)
	}
}

// TestFeed: the changes as events, what a reconnecting client missed
// first, then the live ones; an ID the feed does not know gets the reset
// event, then every change kept.
func TestFeed(t *testing.T) {
	srv := httptest.NewServer(New(NewStore(), testToken))
	// Closed last, after the streams' own cleanups end them: Close waits
	// for every connection.
	t.Cleanup(srv.Close)
	call(t, srv.URL, "POST", "/api/bookmarks", testToken, `{"url":"https://go.dev/","title":"Go"}`)
	call(t, srv.URL, "POST", "/api/bookmarks", testToken, `{"url":"https://pkg.go.dev/","title":"Packages"}`)
	call(t, srv.URL, "DELETE", "/api/bookmarks/1", testToken, "")

	open := func(last string) func() (id, event, data string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		t.Cleanup(cancel)
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/changes", nil)
		req.Header.Set("Last-Event-ID", last)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { res.Body.Close() })
		if res.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("Content-Type: got %q", res.Header.Get("Content-Type"))
		}
		br := bufio.NewReader(res.Body)
		return func() (id, event, data string) {
			t.Helper()
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					t.Fatal(err)
				}
				line = strings.TrimSuffix(line, "\n")
				if line == "" {
					return
				}
				k, v, _ := strings.Cut(line, ": ")
				switch k {
				case "id":
					id = v
				case "event":
					event = v
				case "data":
					data = v
				}
			}
		}
	}
	first, ev, _ := open("0")()
	if n, _, _ := strings.Cut(first, "-"); n != "1" || ev != "created" {
		t.Fatalf("the first change: got %s %s, want change 1, created", first, ev)
	}
	next := open(first)
	if id, ev, data := next(); !strings.HasPrefix(id, "2-") || ev != "created" || !strings.Contains(data, `"title":"Packages"`) {
		t.Errorf("first event after 1: got %s %s %s", id, ev, data)
	}
	if id, ev, data := next(); !strings.HasPrefix(id, "3-") || ev != "deleted" || data != `{"id":1}` {
		t.Errorf("second: got %s %s %s", id, ev, data)
	}
	call(t, srv.URL, "POST", "/api/bookmarks", testToken, `{"url":"https://go.dev/blog/","title":"Blog"}`)
	id, ev, data := next()
	var b Bookmark
	if err := json.NewDecoder(bytes.NewReader([]byte(data))).Decode(&b); err != nil || !strings.HasPrefix(id, "4-") || ev != "created" || b.ID != 3 {
		t.Errorf("live event: got %s %s %s (%v)", id, ev, data, err)
	}

	// From before a restart, or another instance's: the reset event.
	stale := open("7-00c0ffee")
	if id, ev, data := stale(); id != "0" || ev != "reset" || data != `{"lastEventId":"7-00c0ffee"}` {
		t.Errorf("an unknown ID: got %q %s %s, want the reset event, with the id 0 (LogStart)", id, ev, data)
	}
	if id, ev, _ := stale(); id != first || ev != "created" {
		t.Errorf("after the reset: got %s %s, want the first change kept, %s", id, ev, first)
	}
}
