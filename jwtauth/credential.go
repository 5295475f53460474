package jwtauth

import (
	"net/http"
	"strings"
)

// What a request sent in the field that carries the token, as credential
// reads it.
type sent uint8

const (
	absent   sent = iota // no field, or one with nothing in it
	foreign              // a field in another authentication scheme
	repeated             // the field more than once (RFC 6750 section 3.1, invalid_request)
	token                // a token in the scheme, to be judged (it may be empty)
)

// credential returns what the request header h sent in the field key:
// with scheme, "scheme token" (the scheme in any case, RFC 9110 section
// 11.1, then one or more spaces); without (a field other than
// Authorization), the token alone. White space around the value or the
// token is not part of it. The token is returned as sent: its syntax is
// the parser's to judge.
func credential(h http.Header, key, scheme string) (string, sent) {
	v := h[key]
	switch {
	case len(v) == 0:
		return "", absent
	case len(v) > 1:
		return "", repeated
	}
	value := strings.Trim(v[0], " \t")
	if value == "" {
		return "", absent
	}
	if scheme == "" {
		return value, token
	}
	name, rest, _ := strings.Cut(value, " ")
	// A scheme is a token (ASCII), compared by ASCII letters alone: a
	// name of its length that folds to it does so letter by letter,
	// where strings.EqualFold alone would take "To\u212aen" (the Kelvin
	// sign, which Unicode folds to 'k', three bytes) for "Token".
	if len(name) != len(scheme) || !strings.EqualFold(name, scheme) {
		return "", foreign
	}
	return strings.Trim(rest, " \t"), token
}
