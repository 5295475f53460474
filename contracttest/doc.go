// Package contracttest checks a waltz router against its own OpenAPI
// document, from the user's go test.
package contracttest
