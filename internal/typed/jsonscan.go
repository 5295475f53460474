package typed

import (
	"bytes"
	"encoding/json"
)

// jscan reads a JSON text that the decoder has already found well-formed.
type jscan struct {
	s []byte
	i int
}

func (j *jscan) ws() {
	for j.i < len(j.s) && (j.s[j.i] == ' ' || j.s[j.i] == '\t' || j.s[j.i] == '\n' || j.s[j.i] == '\r') {
		j.i++
	}
}

func (j *jscan) peek() byte {
	if j.i < len(j.s) {
		return j.s[j.i]
	}
	return 0
}

// next steps past the ',' after a member or item, if there is one.
func (j *jscan) next() {
	j.ws()
	if j.peek() == ',' {
		j.i++
	}
}

// key reads the next member's key and its ':', or the object's '}' (and
// reports false).
func (j *jscan) key() ([]byte, bool) {
	j.ws()
	if j.peek() != '"' {
		j.i++ // '}'
		return nil, false
	}
	raw := j.str()
	j.ws()
	j.i++ // ':'
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1], true
	}
	var k string
	_ = json.Unmarshal(raw, &k)
	return []byte(k), true
}

// item reports whether an array has another item, stepping past its ']'
// when not.
func (j *jscan) item() bool {
	j.ws()
	if j.peek() == ']' {
		j.i++
		return false
	}
	return true
}

// str reads a string, quotes included, and returns it.
func (j *jscan) str() []byte {
	start := j.i
	for j.i++; j.i < len(j.s); j.i++ {
		switch j.s[j.i] {
		case '\\':
			j.i++
		case '"':
			j.i++
			return j.s[start:j.i]
		}
	}
	return j.s[start:]
}

// skip steps past one value.
func (j *jscan) skip() {
	j.ws()
	depth := 0
	for j.i < len(j.s) {
		switch c := j.s[j.i]; c {
		case '"':
			j.str()
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return // the end of the enclosing value: nothing to skip
			}
			depth--
			if depth == 0 {
				j.i++
				return
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return
			}
		}
		j.i++
	}
}
