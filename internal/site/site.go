// Package site says where a registration call came from: a route, a
// group's seal and a conflict message name the user's line that registered
// them, the first caller outside the framework's own non-test files (the
// root package waltz and the contract, package api).
package site

import (
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// rootDir is the directory of the module's root, with a trailing '/', to
// tell the framework's frames from the caller's. Frame file names use '/'
// on every system.
var rootDir = func() string {
	_, file, _, _ := runtime.Caller(0)
	return path.Dir(path.Dir(path.Dir(file))) + "/"
}()

// PC returns the program counter of the first caller outside the
// framework's non-test files: the user's line that registered a route, or
// 0 if there is none. A route keeps that counter, not its text, and [Of]
// makes it file:line only when a message needs it. It runs once per
// registered route, so it unwinds only a few frames first (the user's is
// two or three up from Handle), and remembers which counters it has found
// inside the package: the frames above a user's call are the same few for
// every route.
func PC() uintptr {
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
// is in the framework's non-test files (or in no file at all).
var internalPCs sync.Map // uintptr to bool

// internal reports whether pc, a counter from runtime.Callers, is in the
// framework's non-test files (the root package's, the contract's, or an
// internal package's), or in no known file.
func internal(pc uintptr) bool {
	if v, ok := internalPCs.Load(pc); ok {
		return v.(bool)
	}
	f := frameOf(pc)
	in := f.File == "" || framework(f.File)
	internalPCs.Store(pc, in)
	return in
}

// framework reports whether file is one of the framework's non-test
// files: in the module's root, in api/ or under internal/.
func framework(file string) bool {
	rest, ok := strings.CutPrefix(file, rootDir)
	if !ok || strings.HasSuffix(rest, "_test.go") {
		return false
	}
	dir := path.Dir(rest)
	return dir == "." || dir == "api" || strings.HasPrefix(dir, "internal/")
}

// frameOf returns the frame of pc, a counter from runtime.Callers.
func frameOf(pc uintptr) runtime.Frame {
	f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
	return f
}

// Of returns file:line of pc, a counter from PC, or "unknown" for 0.
func Of(pc uintptr) string {
	if pc == 0 {
		return "unknown"
	}
	f := frameOf(pc)
	return path.Base(f.File) + ":" + strconv.Itoa(f.Line)
}

// Here returns file:line of the first caller outside the framework's
// non-test files, for a message about the call being made.
func Here() string {
	return Of(PC())
}
