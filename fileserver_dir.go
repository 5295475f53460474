package waltz

import (
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
)

// A directory of a FileServer: the redirect that adds its slash, its
// index file, its listing.

// serveDir serves directory dir, named name: a redirect to add the slash,
// its index file, a listing or a 404.
func (s *fileServer) serveDir(c *Context, name string, dir fs.File, slash bool) error {
	if !slash {
		// Relative, so that it holds behind any prefix or Mount: the last
		// segment of the escaped path, as sent, plus '/'. "./" keeps a
		// segment with a ':' from reading as a URL scheme.
		p := c.Request.URL.EscapedPath()
		p = p[strings.LastIndexByte(p, '/')+1:]
		for len(p) >= 3 && strings.EqualFold(p[len(p)-3:], "%2F") {
			p = p[:len(p)-3] // the slash that came escaped
		}
		loc := "./" + p + "/"
		if p == "" {
			loc = "./" // the segment was the escaped slash alone: the directory of the URL
		}
		if q := c.Request.URL.RawQuery; q != "" {
			loc += "?" + q
		}
		return c.Redirect(http.StatusMovedPermanently, loc)
	}
	index := path.Join(name, s.o.Index)
	f, fi, err := s.open(index)
	if err == nil {
		defer f.Close()
		if fi.Mode().IsRegular() {
			return s.serveFile(c, index, f, fi, false)
		}
	}
	if !s.o.Browse {
		return errNotFound
	}
	rd, ok := dir.(fs.ReadDirFile)
	if !ok {
		return errNotFound
	}
	entries, err := rd.ReadDir(-1)
	if err != nil {
		return openError(err)
	}
	return c.HTML(http.StatusOK, s.listing(name, entries))
}

// listing renders a directory's entries as HTML, sorted by name (by
// bytes), names escaped for both the text and the link; dotfiles are left
// out unless Dotfiles is set, and so are names FileServer refuses.
func (s *fileServer) listing(name string, entries []fs.DirEntry) string {
	var b strings.Builder
	title := html.EscapeString("/" + strings.TrimPrefix(name, "."))
	fmt.Fprintf(&b, "<!doctype html>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<ul>\n", title)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range entries {
		n := e.Name()
		if n == "" || (n[0] == '.' && n != ".well-known" && !s.o.Dotfiles) {
			continue
		}
		if _, _, ok := fileName(n); !ok || strings.IndexByte(n, '/') >= 0 {
			continue // a name FileServer refuses (a control byte, say): no link to a 400
		}
		if e.IsDir() {
			n += "/"
		}
		href := "./" + url.PathEscape(e.Name())
		if e.IsDir() {
			href += "/"
		}
		fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>\n", html.EscapeString(href), html.EscapeString(n))
	}
	b.WriteString("</ul>\n")
	return b.String()
}
