package testhelp

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"testing"
)

// KitRefuses tests a conformance kit (storetest, idemtest, eventlogtest)
// on implementations made wrong on purpose. It runs the test named test
// of this test binary once for "correct" and once for each key of wrong,
// each in a child process whose environment sets env to that name, all
// at once (the kits spend their time asleep in waits). The test, seeing
// env set, runs the kit on the implementation of that name. A child for
// "correct" must pass; one for a wrong implementation must fail, with
// the kit's check wrong[name] among its failing subtests. noun names the
// implementation in a failure ("store", "log").
func KitRefuses(t *testing.T, test, env string, wrong map[string]string, noun string) {
	t.Helper()
	names := []string{"correct"}
	for name := range wrong {
		names = append(names, name)
	}
	slices.Sort(names)
	type child struct {
		out  bytes.Buffer
		done chan error
	}
	children := map[string]*child{}
	for _, name := range names {
		c := &child{done: make(chan error, 1)}
		cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v", "-test.count=1", "-test.timeout=60s")
		cmd.Env = append(os.Environ(), env+"="+name)
		cmd.Stdout, cmd.Stderr = &c.out, &c.out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { c.done <- cmd.Wait() }()
		children[name] = c
	}
	failed := regexp.MustCompile(`--- FAIL: ` + test + `/(\w+)`)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			c := children[name]
			err := <-c.done
			out := c.out.String()
			var checks []string
			for _, m := range failed.FindAllStringSubmatch(out, -1) {
				checks = append(checks, m[1])
			}
			if name == "correct" {
				if err != nil {
					t.Fatalf("the kit failed a correct %s: %v\n%s", noun, err, out)
				}
				return
			}
			if want := wrong[name]; err == nil || !slices.Contains(checks, want) {
				t.Fatalf("got failing checks %q (exit %v), want %q among them\n%s", checks, err, want, out)
			}
		})
	}
}
