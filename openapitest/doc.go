// Package openapitest holds the tests that check the bookmarks example's
// OpenAPI document with tools written outside this repository: it builds
// as an OpenAPI 3.1 model in github.com/pb33f/libopenapi, and every request
// and response of an integration test against the example's router is
// validated against it with github.com/pb33f/libopenapi-validator. ci.sh
// runs these tests, then lints the document with @redocly/cli and runs a
// TypeScript client generated from it against the example server.
//
// It is a module of its own, so the waltz module keeps no require line.
package openapitest
