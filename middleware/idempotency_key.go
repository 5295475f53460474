package middleware

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/waltz-go/waltz"
	"github.com/waltz-go/waltz/internal/header"
)

// An idempotency key and whose it is: the field's syntax (an sf-string of
// RFC 8941, or a token) and the default scope, the caller.

// keyPattern is the syntax of a key parseKey takes, for the document: a
// non-empty sf-string (RFC 8941 section 3.3.3: printable ASCII in double
// quotes, with \" and \\ escaped), or a token that may hold ':' and '/'.
const keyPattern = "^(?:\"(?:[ !#-\\[\\]-~]|\\\\[\"\\\\])+\"|[-!#$%&'*+.^_`|~0-9A-Za-z:/]+)$"

// parseKey returns the key in the field value v, or the 400 to answer.
func (id *idempotency) parseKey(v string) (string, error) {
	v = strings.Trim(v, " \t")
	if len(v) > 2*id.maxKey+2 { // longer than any key of maxKey bytes, escaped and quoted
		return "", id.tooLong
	}
	if v == "" {
		return "", id.malformed
	}
	var key string
	if v[0] == '"' {
		k, ok := sfString(v)
		if !ok {
			return "", id.malformed
		}
		key = k
	} else {
		for i := 0; i < len(v); i++ {
			if c := v[i]; !header.IsTokenByte(c) && c != ':' && c != '/' {
				return "", id.malformed
			}
		}
		key = v
	}
	switch {
	case key == "":
		return "", id.malformed
	case len(key) > id.maxKey:
		return "", id.tooLong
	}
	return key, nil
}

// sfString returns the value of v, which starts with '"', as an sf-string
// that makes up the whole of v (RFC 8941 sections 3.3.3 and 4.2.5), and
// whether it is one: printable ASCII, with '"' and '\' escaped by '\' and
// no other escape. A string without escapes is returned as a substring.
func sfString(v string) (string, bool) {
	escapes := false
	i := 1
	for ; i < len(v); i++ {
		c := v[i]
		if c == '\\' {
			if i+1 >= len(v) || v[i+1] != '"' && v[i+1] != '\\' {
				return "", false
			}
			escapes = true
			i++
			continue
		}
		if c == '"' {
			break
		}
		if c < 0x20 || c > 0x7e {
			return "", false
		}
	}
	if i != len(v)-1 {
		return "", false // no closing quote, or something after it
	}
	s := v[1:i]
	if escapes {
		var b strings.Builder
		for j := 0; j < len(s); j++ {
			if s[j] == '\\' {
				j++
			}
			b.WriteByte(s[j])
		}
		s = b.String()
	}
	return s, true
}

// callerScope is the default Scope: the user BasicAuth admitted, else the
// SHA-256 of the Authorization field, else "". A Basic user name holds no
// colon (RFC 7617 section 2), so neither can be taken for the other.
func callerScope(c *waltz.Context) string {
	if u := BasicAuthUser(c.Request.Context()); u != "" {
		return u
	}
	vs := c.Request.Header["Authorization"]
	if len(vs) != 1 || vs[0] == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(vs[0]))
	var b [len("authorization:") + 2*sha256.Size]byte
	n := copy(b[:], "authorization:")
	hex.Encode(b[n:], sum[:])
	return string(b[:])
}
