package waltz

import (
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// Where a registration call came from. A route, a group's seal and a
// conflict message name the user's line that registered them: the first
// caller outside this package's non-test files.

// pkgDir is the directory of this package's source, with a trailing '/',
// to tell its frames from the caller's. Frame file names use '/' on every
// system.
var pkgDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return path.Dir(file) + "/"
}()

// callerPC returns the program counter of the first caller outside this
// package's non-test files: the user's line that registered a route, or 0
// if there is none. A route keeps that counter, not its text, and [site]
// makes it file:line only when a message needs it. It runs once per
// registered route, so it unwinds only a few frames first (the user's is
// two or three up from Handle), and remembers which counters it has found
// inside the package: the frames above a user's call are the same few for
// every route.
func callerPC() uintptr {
	var pcs [32]uintptr
	for _, depth := range [...]int{6, len(pcs)} {
		// runtime.Callers gives one counter per frame, inlined frames
		// included, so each one names a frame of its own.
		n := runtime.Callers(2, pcs[:depth])
		for _, pc := range pcs[:n] {
			if !internal(pc) {
				return pc
			}
		}
		if n < depth {
			break
		}
	}
	return 0
}

// internalPCs holds, for each counter internal has classified, whether it
// is in this package's non-test files (or in no file at all).
var internalPCs sync.Map // uintptr to bool

// internal reports whether pc, a counter from runtime.Callers, is in this
// package's non-test files, or in no known file.
func internal(pc uintptr) bool {
	if v, ok := internalPCs.Load(pc); ok {
		return v.(bool)
	}
	f := frameOf(pc)
	rest, inPkg := strings.CutPrefix(f.File, pkgDir)
	in := f.File == "" || inPkg && strings.IndexByte(rest, '/') < 0 && !strings.HasSuffix(rest, "_test.go")
	internalPCs.Store(pc, in)
	return in
}

// frameOf returns the frame of pc, a counter from runtime.Callers.
func frameOf(pc uintptr) runtime.Frame {
	f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
	return f
}

// site returns file:line of pc, a counter from callerPC, or "unknown" for 0.
func site(pc uintptr) string {
	if pc == 0 {
		return "unknown"
	}
	f := frameOf(pc)
	return path.Base(f.File) + ":" + strconv.Itoa(f.Line)
}

// callerWhere returns file:line of the first caller outside this package's
// non-test files, for a message about the call being made.
func callerWhere() string {
	return site(callerPC())
}
