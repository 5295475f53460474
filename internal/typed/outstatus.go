package typed

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// The success statuses an Out type's Status field may take: its enum
// tag lists them (`enum:"200,202"`), the document lists each as a
// success answer, and an answer whose Status is outside them is the
// handler's bug, never sent.

// planStatuses reads the enum tag of f, the Status field of the Out type
// t, into p.statuses: each a success status an answer of Out can be
// (StatusAllowed), none twice. A Status field takes no other rule tag.
func (p *OutPlan) planStatuses(t reflect.Type, f reflect.StructField) error {
	for _, k := range ruleTags {
		if _, ok := f.Tag.Lookup(k); ok && k != "enum" {
			return PlanError(t, &f, "tag %s: a Status field takes the enum rule alone, the success statuses it may be", k)
		}
	}
	v, ok := f.Tag.Lookup("enum")
	if !ok {
		return nil
	}
	items, err := EnumValues(v)
	if err != nil {
		return PlanError(t, &f, "tag enum:%q %v", v, err)
	}
	for _, it := range items {
		s, err := strconv.Atoi(it)
		if err != nil {
			return PlanError(t, &f, "tag enum:%q: %q is no status code", v, it)
		}
		if why := StatusAllowed(s); why != "" {
			return PlanError(t, &f, "tag enum:%q: %s", v, why)
		}
		if slices.Contains(p.statuses, s) {
			return PlanError(t, &f, "tag enum:%q lists %d twice", v, s)
		}
		p.statuses = append(p.statuses, s)
	}
	slices.Sort(p.statuses)
	return nil
}

// StatusAllowed returns "" when s is a status a typed success answer may
// have, else why it may not: s must be a final status of class 2xx or 3xx
// (RFC 9110 section 15), but 206, which answers a Range request (section
// 15.3.7), 304, which answers a conditional GET from Out's validators
// (section 15.4.5), and 305 and 306, deprecated and unused (sections
// 15.4.6, 15.4.7).
func StatusAllowed(s int) string {
	switch {
	case s < 100 || s > 599:
		return fmt.Sprintf("%d is no status code (RFC 9110 section 15: 100 to 599)", s)
	case s < 200:
		return fmt.Sprintf("%d is interim, no final answer (RFC 9110 section 15.2)", s)
	case s > 399:
		return fmt.Sprintf("%d is an error's status: the handler returns the error (declared in Operation.Errors)", s)
	case s == 206:
		return "206 Partial Content answers a Range request (RFC 9110 section 15.3.7), which only a Download's serving answers"
	case s == 304:
		return "304 Not Modified is answered from Out's ETag and Last-Modified fields (RFC 9110 section 15.4.5), not set by the handler"
	case s == 305 || s == 306:
		return fmt.Sprintf("%d is deprecated or unused (RFC 9110 sections 15.4.6, 15.4.7)", s)
	}
	return ""
}

// checkDefault returns an error when p's Status field has an enum that
// does not list p's default success status, given as status (0 when
// Operation.Status was not set): a handler that leaves Status 0 would
// answer a status the document does not list.
func (p *OutPlan) checkDefault(status int) error {
	if p.statuses == nil || slices.Contains(p.statuses, p.status) {
		return nil
	}
	f, _ := p.typ.FieldByName("Status")
	if status == 0 {
		return PlanError(p.typ, &f, "the enum %s does not list %d, the status of an answer whose Status is 0: "+
			"set Operation.Status to the one of them it answers", p.enumText(), p.status)
	}
	return PlanError(p.typ, &f, "the enum %s does not list Operation.Status %d", p.enumText(), p.status)
}

// enumText returns p.statuses as the enum tag lists them, for a message.
func (p *OutPlan) enumText() string {
	ss := make([]string, len(p.statuses))
	for i, s := range p.statuses {
		ss[i] = strconv.Itoa(s)
	}
	return strconv.Quote(strings.Join(ss, ","))
}

// Statuses returns the statuses, sorted, that the enum of p's Status
// field lists, the default success status among them (SuccessStatus);
// nil when Out has no Status field or its field has no enum, whose
// answers may have any status. The slice is p's: the caller must not
// change it.
func (p *OutPlan) Statuses() []int { return p.statuses }

// StatusError returns the error of an answer whose Status field is s,
// outside the enum of p's Status field, for the handler of method and
// pattern: a bug of the handler's, which the router answers 500 and
// logs.
func (p *OutPlan) StatusError(method, pattern string, s int) error {
	return fmt.Errorf("waltz: %s %s: the handler answered status %d, which the enum %s of %s's Status field does not list",
		method, pattern, s, p.enumText(), p.typ)
}

// NoContent reports whether an answer of status s has no content: a 204
// or a 205 (RFC 9110 sections 15.3.5, 15.3.6), which an Out's Body is
// not sent with.
func NoContent(s int) bool { return s == 204 || s == 205 }
