package api

import (
	"context"
	"net/http"
	"net/http/httptest"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/testhelp"
)

// Helpers shared by the package's tests, internal/testhelp's: the
// router's tests use the same.

var (
	serve        = testhelp.Serve
	serveWith    = testhelp.ServeWith
	panicMessage = testhelp.PanicMessage
	silenceLogs  = testhelp.SilenceLogs
	newNopWriter = testhelp.NewNopWriter
	benchServe   = testhelp.BenchServe
	readEvent    = testhelp.ReadEvent
)

type (
	nopWriter      = testhelp.NopWriter
	flushNopWriter = testhelp.FlushNopWriter
)

const (
	raceAllocs  = testhelp.RaceAllocs
	raceEnabled = testhelp.RaceEnabled
)

// testStream returns an EventStream on w for a request whose context is
// ctx, as a handler's Context makes it.
func testStream(w http.ResponseWriter, ctx context.Context) *waltz.EventStream {
	c := waltz.NewContext(w, httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx))
	es, err := c.EventStream()
	if err != nil {
		panic(err)
	}
	return es
}

type sseEvent = testhelp.Event
