package typed

import (
	"encoding/json"
	"reflect"
	"sync"
)

// checkPlans are the body plans Check made, by type.
var checkPlans sync.Map // reflect.Type → *bodyPlan

// Check checks v, a non-nil pointer to a value of a struct type, against
// the rules of its type's tags as a JSON body of that type is checked:
// v is written as encoding/json writes it and read back by the type's
// body plan into a value of its own (v is not changed), and each failure
// goes to sink with its location ("body.title", "body.tags[1]"). It
// reports whether v passed; the error is encoding/json's, or the type's
// that cannot be planned.
func Check(v any, sink FailureSink) (bool, error) {
	t := reflect.TypeOf(v).Elem()
	var bp *bodyPlan
	if p, ok := checkPlans.Load(t); ok {
		bp = p.(*bodyPlan)
	} else {
		p, err := planBody(t, reflect.StructField{Name: "Body", Type: t})
		if err != nil {
			return false, err
		}
		bp = p
		checkPlans.Store(t, bp)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return false, err
	}
	b := &binder{in: Input{Fails: sink}, base: reflect.New(t).UnsafePointer()}
	bp.decode(b, raw)
	return b.nfails == 0, nil
}
