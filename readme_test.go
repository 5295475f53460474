package waltz

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The documents a reader follows: the front page, the guides, and the
// package documentation of the root and of api.
const (
	docsDir = "docs"
	readme  = "README.md"
)

// TestDocSnippets holds README.md and the guides in docs/ to the code, so
// that none goes stale:
//
//   - each Go block is code a test runs or builds: every piece of it
//     (the text between blank lines) appears word for word, indentation
//     aside, in a tested file (an example_*_test.go file, whose Examples
//     run, a test that calls it, or an example command's source, which its
//     tests build and run);
//   - each JSON block is what an Example prints: it appears, white space
//     aside, in the // Output: of a tested file;
//   - each command of a sh block names what exists: go run's package and
//     flags, go test's packages and the tests, benchmarks and fuzz
//     targets its -run, -bench and -fuzz patterns select, the scripts it
//     runs, the directories it enters;
//   - each relative link leads to a file, and each #anchor to a heading of
//     the document it names.
//
// The package documentation (doc.go, api/doc.go) is held the same way:
// its indented blocks that are Go (that parse as statements or
// declarations) must be tested code, and the guides it names must exist.
func TestDocSnippets(t *testing.T) {
	tested, outputs := testedCode(t)
	docs, err := filepath.Glob(filepath.Join(docsDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("docs/ has no guide")
	}
	for _, name := range append([]string{readme}, docs...) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		for _, blk := range fencedBlocks(text) {
			where := fmt.Sprintf("%s:%d", name, blk.line)
			switch blk.lang {
			case "go":
				for _, p := range missingPieces(blk.code, tested) {
					t.Errorf("%s: a piece of this Go block is in no tested file:\n%s", where, p)
				}
			case "json":
				if !strings.Contains(outputs, noSpace(blk.code)) {
					t.Errorf("%s: this JSON block is in no Example's output:\n%s", where, blk.code)
				}
			case "sh":
				for _, e := range checkCommands(blk.code) {
					t.Errorf("%s: %s", where, e)
				}
			}
		}
		for _, e := range checkLinks(name, text) {
			t.Errorf("%s: %s", name, e)
		}
	}
	for _, name := range []string{"doc.go", "api/doc.go"} {
		for _, e := range checkPackageDoc(name, tested) {
			t.Errorf("%s: %s", name, e)
		}
	}
}

// testedCode returns the normalized text of every tested file: each
// example_*_test.go of the repository (its companion modules' included,
// whose ci.sh runs them), the tests a guide quotes, and the Go files of
// the example commands, which their tests build and run. It also returns
// what the Examples print, their // Output: comments, without white space.
func testedCode(t testing.TB) (code, outputs string) {
	t.Helper()
	var b, out strings.Builder
	quoted := map[string]bool{"contracttest/bookmarks_test.go": true}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		p = filepath.ToSlash(p)
		example := strings.HasPrefix(name, "example") && strings.HasSuffix(name, "_test.go")
		command := strings.HasPrefix(p, "examples/") && strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")
		if example || command || quoted[p] {
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			b.WriteString(normalize(string(src)))
			out.WriteString(exampleOutputs(string(src)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String(), out.String()
}

// exampleOutputs returns the text of the // Output: comments of src,
// without white space, each followed by a NUL.
func exampleOutputs(src string) string {
	var b strings.Builder
	in := false
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "// Output:" || l == "// Unordered output:":
			in = true
		case in && strings.HasPrefix(l, "//"):
			b.WriteString(noSpace(strings.TrimPrefix(l, "//")))
		case in:
			b.WriteByte(0)
			in = false
		}
	}
	return b.String()
}

// noSpace returns s without its white space.
func noSpace(s string) string {
	return strings.Join(strings.Fields(s), "")
}

// block is a fenced code block of a Markdown file.
type block struct {
	lang, code string
	line       int // of the opening fence
}

// fencedBlocks returns the ``` blocks of a Markdown text.
func fencedBlocks(text string) []block {
	var out []block
	var cur *block
	var code strings.Builder
	for i, l := range strings.Split(text, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			cur = &block{lang: strings.TrimSpace(l[3:]), line: i + 1}
			code.Reset()
		case cur != nil && strings.TrimSpace(l) == "```":
			cur.code = code.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			code.WriteString(l + "\n")
		}
	}
	return out
}

// missingPieces returns the pieces of code (the parts between blank
// lines) that tested does not hold.
func missingPieces(code, tested string) []string {
	var out []string
	for _, piece := range strings.Split(code, "\n\n") {
		if p := normalize(piece); p != "" && !strings.Contains(tested, p) {
			out = append(out, piece)
		}
	}
	return out
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

// checkCommands returns what is wrong with the commands of a sh block:
// each line (a trailing \ joins the next) runs from the repository's
// root, a cd changes directory for the rest of its line.
func checkCommands(code string) []string {
	var errs []string
	for _, line := range strings.Split(strings.ReplaceAll(code, "\\\n", " "), "\n") {
		dir := "."
		for _, cmd := range splitCommands(shellWords(line)) {
			for len(cmd) > 0 && strings.Contains(cmd[0], "=") && !strings.HasPrefix(cmd[0], "-") {
				cmd = cmd[1:] // VAR=value
			}
			if len(cmd) == 0 {
				continue
			}
			if cmd[0] == "cd" && len(cmd) > 1 {
				dir = path.Join(dir, cmd[1])
				if !isDir(dir) {
					errs = append(errs, fmt.Sprintf("cd %s: no such directory", cmd[1]))
				}
				continue
			}
			errs = append(errs, checkCommand(dir, cmd)...)
		}
	}
	return errs
}

// checkCommand checks one command run in dir.
func checkCommand(dir string, cmd []string) []string {
	switch {
	case cmd[0] == "bash" && len(cmd) > 1:
		return checkScript(dir, cmd[1])
	case strings.HasSuffix(cmd[0], ".sh"):
		return checkScript(dir, cmd[0])
	case cmd[0] != "go" || len(cmd) < 2:
		return nil // curl, valgrind, ...: not ours to check
	}
	switch cmd[1] {
	case "get":
		return checkGoGet(cmd[2:])
	case "run", "build":
		return checkGoRun(dir, cmd[1:])
	case "test":
		return checkGoTest(dir, cmd[2:])
	}
	return nil
}

func checkScript(dir, script string) []string {
	if _, err := os.Stat(path.Join(dir, script)); err != nil {
		return []string{fmt.Sprintf("script %s (in %s): %v", script, dir, err)}
	}
	return nil
}

// checkGoGet checks that each module path is the root module or one of
// its companions, a directory of this repository.
func checkGoGet(args []string) []string {
	const module = "github.com/waltz-go/waltz"
	var errs []string
	for _, a := range args {
		a, _, _ = strings.Cut(a, "@")
		rest, ok := strings.CutPrefix(a, module)
		if !ok || (rest != "" && !isDir(strings.TrimPrefix(rest, "/"))) {
			errs = append(errs, fmt.Sprintf("go get %s: not this repository's module", a))
		}
	}
	return errs
}

// checkGoRun checks a go run or go build of a local package: the
// package exists, and every -flag after it is one its main defines.
func checkGoRun(dir string, args []string) []string {
	for i, a := range args {
		if !strings.HasPrefix(a, "./") {
			continue
		}
		pkg := path.Join(dir, a)
		if !isDir(pkg) {
			return []string{fmt.Sprintf("go %s %s: no such package", args[0], a)}
		}
		if args[0] != "run" {
			return nil
		}
		src := readGo(pkg, false)
		var errs []string
		for _, f := range args[i+1:] {
			name, ok := strings.CutPrefix(f, "-")
			if !ok {
				continue
			}
			name, _, _ = strings.Cut(strings.TrimPrefix(name, "-"), "=")
			if name != "h" && !regexp.MustCompile(`flag\.\w+\("`+regexp.QuoteMeta(name)+`"`).MatchString(src) {
				errs = append(errs, fmt.Sprintf("go run %s: the command has no flag -%s", a, name))
			}
		}
		return errs
	}
	return nil
}

// goTestValueFlags are go test's flags that take a value.
var goTestValueFlags = map[string]bool{
	"run": true, "bench": true, "fuzz": true, "count": true, "fuzztime": true, "timeout": true,
	"benchtime": true, "gcflags": true, "tags": true, "cpu": true, "o": true, "skip": true,
}

// checkGoTest checks a go test: its packages exist and, for one package,
// its -run, -bench and -fuzz patterns select a function of its tests.
func checkGoTest(dir string, args []string) []string {
	var pkgs []string
	pattern := map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, ok := strings.CutPrefix(a, "-")
		if !ok {
			pkgs = append(pkgs, a)
			continue
		}
		name, value, hasValue := strings.Cut(name, "=")
		if goTestValueFlags[name] && !hasValue && i+1 < len(args) {
			i++
			value = args[i]
		}
		if name == "run" || name == "bench" || name == "fuzz" {
			pattern[name] = value
		}
	}
	if len(pkgs) == 0 {
		pkgs = []string{"."}
	}
	var errs []string
	for _, p := range pkgs {
		if !isDir(path.Join(dir, strings.TrimSuffix(p, "/..."))) {
			errs = append(errs, fmt.Sprintf("go test %s: no such package", p))
		}
	}
	if len(errs) > 0 || len(pkgs) != 1 || strings.HasSuffix(pkgs[0], "...") {
		return errs
	}
	funcs := testFuncs(path.Join(dir, pkgs[0]))
	for flag, kinds := range map[string]string{"run": "Test|Example|Fuzz", "bench": "Benchmark", "fuzz": "Fuzz"} {
		p, ok := pattern[flag]
		if !ok || p == "^$" {
			continue
		}
		top, _, _ := strings.Cut(p, "/") // a subtest's part is not a function's
		re, err := regexp.Compile(top)
		if err != nil {
			errs = append(errs, fmt.Sprintf("go test -%s %q: %v", flag, p, err))
			continue
		}
		found := false
		for _, f := range funcs {
			if regexp.MustCompile(`^(`+kinds+`)`).MatchString(f) && re.MatchString(f) {
				found = true
				break
			}
		}
		if !found {
			errs = append(errs, fmt.Sprintf("go test -%s %q in %s: selects no %s function", flag, p, pkgs[0], kinds))
		}
	}
	return errs
}

// testFuncs returns the names of the top-level functions of dir's tests.
func testFuncs(dir string) []string {
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^func (\w+)\(`).FindAllStringSubmatch(readGo(dir, true), -1) {
		names = append(names, m[1])
	}
	return names
}

// readGo returns the Go files of dir, its tests or the rest, in one text.
func readGo(dir string, tests bool) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var b strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") == tests {
			src, _ := os.ReadFile(f)
			b.Write(src)
		}
	}
	return b.String()
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// shellWords splits a line into words as a shell does, quotes removed; a
// # that starts a word ends the line. Operators (&& || ; | ( ) >) are
// words of their own.
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	inWord, quote := false, byte(0)
	flush := func() {
		if inWord {
			words = append(words, w.String())
		}
		w.Reset()
		inWord = false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				w.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			flush()
			return words
		case strings.IndexByte("&|;()<>", c) >= 0:
			flush()
			words = append(words, string(c))
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words
}

// splitCommands splits words at the shell's operators into commands; a
// redirection's target is dropped with it.
func splitCommands(words []string) [][]string {
	var cmds [][]string
	var cur []string
	for i := 0; i < len(words); i++ {
		switch words[i] {
		case "&", "|", ";", "(", ")":
			if len(cur) > 0 {
				cmds = append(cmds, cur)
			}
			cur = nil
		case ">", "<":
			i++ // the file
		default:
			cur = append(cur, words[i])
		}
	}
	if len(cur) > 0 {
		cmds = append(cmds, cur)
	}
	return cmds
}

// checkLinks checks the relative links of the Markdown file name: each
// leads to a file or directory, and an #anchor into a Markdown file to
// one of its headings.
func checkLinks(name, text string) []string {
	var errs []string
	for _, m := range regexp.MustCompile(`\]\(([^)\s]+)\)`).FindAllStringSubmatch(stripCode(text), -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		file, anchor, _ := strings.Cut(target, "#")
		p := name
		if file != "" {
			p = path.Join(path.Dir(name), file)
			if _, err := os.Stat(p); err != nil {
				errs = append(errs, fmt.Sprintf("link %s: %v", target, err))
				continue
			}
		}
		if anchor != "" && strings.HasSuffix(p, ".md") && !hasAnchor(p, anchor) {
			errs = append(errs, fmt.Sprintf("link %s: %s has no heading #%s", target, p, anchor))
		}
	}
	return errs
}

// stripCode returns text without its fenced blocks and code spans.
func stripCode(text string) string {
	text = regexp.MustCompile("(?s)```.*?```").ReplaceAllString(text, "")
	return regexp.MustCompile("`[^`\n]*`").ReplaceAllString(text, "")
}

// hasAnchor reports whether the Markdown file p has a heading whose
// GitHub anchor is anchor.
func hasAnchor(p, anchor string) bool {
	b, err := os.ReadFile(p)
	if err != nil {
		return false
	}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.*)$`).FindAllStringSubmatch(stripFences(string(b)), -1) {
		if slug(m[1]) == anchor {
			return true
		}
	}
	return false
}

// stripFences returns text without its fenced blocks, whose # lines are
// no headings.
func stripFences(text string) string {
	return regexp.MustCompile("(?s)```.*?```").ReplaceAllString(text, "")
}

// slug is GitHub's anchor of a heading: lower case, punctuation other
// than '-' and '_' dropped, spaces made '-'.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 0x7f:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// checkPackageDoc checks the package comment of the Go file name: its
// indented blocks that parse as Go are tested code, and each docs/*.md
// it names exists.
func checkPackageDoc(name, tested string) []string {
	f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments|parser.PackageClauseOnly)
	if err != nil {
		return []string{err.Error()}
	}
	if f.Doc == nil {
		return []string{"no package documentation"}
	}
	text := f.Doc.Text()
	var errs []string
	for _, code := range indentedBlocks(text) {
		if !isGo(code) {
			continue
		}
		for _, p := range missingPieces(code, tested) {
			errs = append(errs, fmt.Sprintf("a piece of this example is in no tested file:\n%s", p))
		}
	}
	for _, m := range regexp.MustCompile(`docs/[\w-]+\.md`).FindAllString(text, -1) {
		if _, err := os.Stat(m); err != nil {
			errs = append(errs, fmt.Sprintf("names %s: %v", m, err))
		}
	}
	return errs
}

// indentedBlocks returns the preformatted blocks of a doc comment's text:
// runs of tab-indented lines, blank lines inside them kept.
func indentedBlocks(text string) []string {
	var out []string
	var cur strings.Builder
	blank := 0
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "\t"):
			cur.WriteString(strings.Repeat("\n", blank) + l[1:] + "\n")
			blank = 0
		case strings.TrimSpace(l) == "" && cur.Len() > 0:
			blank++
		default:
			if cur.Len() > 0 {
				out = append(out, cur.String())
			}
			cur.Reset()
			blank = 0
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// isGo reports whether code parses as Go declarations or statements.
func isGo(code string) bool {
	fset := token.NewFileSet()
	if f, err := parser.ParseFile(fset, "", "package p\n"+code, 0); err == nil && len(f.Decls) > 0 {
		return true
	}
	f, err := parser.ParseFile(fset, "", "package p\nfunc _() {\n"+code+"\n}", 0)
	if err != nil {
		return false
	}
	body := f.Decls[0].(*ast.FuncDecl).Body
	return body != nil && len(body.List) > 0
}
