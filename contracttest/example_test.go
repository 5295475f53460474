package contracttest_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/api"
	"github.com/waltz-go/waltz/contracttest"
)

// printer is the testing.TB of the example, which has no test: it prints
// what Run reports. In a test, pass the test's t.
type printer struct{ testing.TB }

func (printer) Helper()                           {}
func (printer) Logf(format string, args ...any)   {}
func (printer) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }
func (printer) Fatalf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

type ThingIn struct {
	ID int64 `path:"id" minimum:"1" maximum:"1000"`
}

type Thing struct {
	ID int64 `json:"id"`
}

type ThingOut struct{ Body Thing }

// The handler answers 409 for thing 1000, a status its operation does not
// declare: the run finds it at the maximum, and says how to send the
// request again.
func Example() {
	r := waltz.New()
	api.Op(r, http.MethodGet, "/things/:id", func(c *waltz.Context, in *ThingIn) (*ThingOut, error) {
		if in.ID == 1000 {
			return nil, &waltz.HTTPError{Code: http.StatusConflict, Message: "thing 1000 is busy"}
		}
		return &ThingOut{Thing{ID: in.ID}}, nil
	}, api.Operation{ID: "getThing"})

	contracttest.Run(printer{}, r, contracttest.Options{Count: 5})
	// Output:
	// getThing path.id at maximum: an undeclared status: got 409, want one of 200, 422
	// 	curl -i -H 'Accept: application/json, application/problem+json, text/plain' 'http://localhost:3000/things/1000'
	// 	got: 409 application/problem+json {"type":"about:blank","title":"Conflict","status":409,"detail":"thing 1000 is busy","instance":"/things/1000"}
	// 	Options.Known: contracttest.Known{Operation: "getThing", Location: "path.id", Keyword: "maximum", Reason: "..."}
}
