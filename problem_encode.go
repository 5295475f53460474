package waltz

import (
	"strconv"

	"github.com/waltz-go/waltz/internal/typed"
)

// appendProblem appends p as JSON to b, as encoding/json would write it
// with HTML escaping off, without reflection: an error answer costs
// little more than the success it replaces.
func appendProblem(b []byte, p *Problem) []byte {
	b = append(b, `{"type":`...)
	b = typed.AppendString(b, p.Type, false)
	b = append(b, `,"title":`...)
	b = typed.AppendString(b, p.Title, false)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(p.Status), 10)
	if p.Detail != "" {
		b = append(b, `,"detail":`...)
		b = typed.AppendString(b, p.Detail, false)
	}
	if p.Instance != "" {
		b = append(b, `,"instance":`...)
		b = typed.AppendString(b, p.Instance, false)
	}
	if len(p.Errors) > 0 {
		b = append(b, `,"errors":[`...)
		for i, e := range p.Errors {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"location":`...)
			b = typed.AppendString(b, e.Location, false)
			b = append(b, `,"keyword":`...)
			b = typed.AppendString(b, e.Keyword, false)
			b = append(b, `,"message":`...)
			b = typed.AppendString(b, e.Message, false)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}
