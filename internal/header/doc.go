// Package header holds the byte-level syntax of HTTP fields that several
// parts of waltz read (RFC 9110 section 5): tokens, comma-separated lists
// with quoted strings, weights, and the content codings of
// Accept-Encoding. Each rule is written once here, so the router, the
// bundled middleware and the file server cannot read one field two ways.
//
// Every function works on the field's text as it arrived, allocates
// nothing, and never panics, whatever the field's text: a field is client
// input, and a malformed element is skipped or reported, never trusted.
package header
