package apidocs_test

import (
	"bytes"
	"cmp"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/apidocs"
)

type longInput struct {
	Token string `query:"token" required:"true" example:"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" doc:"https://example.com/a/very/long/address/that/goes/on/and/on/without/a/single/space/in/it/for/a/long/while/yes/still/going/on/and/on/and/on/and/on/and/on"`
}

// TestLayoutBrowser renders in headless Chromium a page whose texts run
// long with no space to break at (a description, a parameter's example,
// an operation ID, a title): the page must be no wider than the window,
// each text broken where it must be rather than pushed past the edge.
// The page is served without its policy and with a script that writes
// the page's width into the DOM for --dump-dom to show.
//
// It runs only when WALTZ_E2E is set, as the bookmarks example's
// TestDocsBrowser; CHROMIUM names the browser binary (default
// "chromium").
func TestLayoutBrowser(t *testing.T) {
	if os.Getenv("WALTZ_E2E") == "" {
		t.Skip("set WALTZ_E2E=1 to lay the page out in headless Chromium")
	}
	chrome := cmp.Or(os.Getenv("CHROMIUM"), "chromium")
	if _, err := exec.LookPath(chrome); err != nil {
		t.Fatalf("WALTZ_E2E is set but there is no browser: %v", err)
	}
	long := strings.Repeat("word", 100)
	r := waltz.New()
	api.Op(r, http.MethodGet, "/long/"+long, func(c *waltz.Context, in *longInput) (*struct{}, error) { return nil, nil },
		api.Operation{ID: "id" + long, Summary: "s" + long, Description: "d" + long, Tags: []string{"t" + long}})
	docs := apidocs.Handler(r, api.Info{Title: "T" + long, Description: "D" + long})
	const measure = `<script>document.body.dataset.width = document.documentElement.scrollWidth + " " + document.documentElement.clientWidth</script></body>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		rec := httptest.NewRecorder()
		docs.ServeHTTP(rec, req)
		w.Header().Set("Content-Type", rec.Header().Get("Content-Type"))
		w.Write(bytes.Replace(rec.Body.Bytes(), []byte("</body>"), []byte(measure), 1))
	}))
	defer srv.Close()

	for _, width := range []string{"1280", "600"} {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		cmd := exec.CommandContext(ctx, chrome, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
			"--no-first-run", "--disable-extensions", "--no-proxy-server", "--hide-scrollbars",
			"--user-data-dir="+t.TempDir(), "--window-size="+width+",2000", "--dump-dom", srv.URL+"/docs")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr, cmd.WaitDelay = &stdout, &stderr, 5*time.Second
		err := cmd.Run()
		cancel()
		if err != nil {
			t.Fatalf("%s: %v\n%s", chrome, err, stderr.String())
		}
		m := regexp.MustCompile(`data-width="(\d+) (\d+)"`).FindStringSubmatch(stdout.String())
		if m == nil {
			t.Fatalf("window %s wide: the page's width is not in the DOM:\n%s", width, stdout.String())
		}
		if m[1] != m[2] {
			t.Errorf("window %s wide: the page is %s pixels wide, its window %s: a long text runs past the edge", width, m[1], m[2])
		}
	}
}
