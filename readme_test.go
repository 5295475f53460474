package waltz

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeSnippets: every Go snippet in
// README.md is code that a tested file runs. Each declaration or
// statement group of a snippet (the pieces between blank lines) must appear
// word for word, indentation aside, in a runnable Example or an example
// command, whose tests build and run it.
func TestReadmeSnippets(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"example_test.go", "example_server_test.go", "example_resource_test.go", "api/example_test.go", "example_url_test.go", "middleware/example_test.go", "middleware/example_override_test.go", "apidocs/example_test.go", "client/example_test.go",
		"redisstore/example_test.go", "contracttest/bookmarks_test.go", "telemetry/example_otel_test.go", "telemetry/example_prometheus_test.go"}
	cmds, _ := filepath.Glob("examples/*/main.go")
	var tested strings.Builder
	for _, f := range append(files, cmds...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tested.WriteString(normalize(string(b)))
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no Go snippet")
	}
	for _, b := range blocks {
		for _, piece := range strings.Split(b[1], "\n\n") {
			if p := normalize(piece); p != "" && !strings.Contains(tested.String(), p) {
				t.Errorf("README snippet piece is in no tested example:\n%s", piece)
			}
		}
	}
}

// normalize drops each line's indentation and the blank lines.
func normalize(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
