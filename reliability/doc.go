// Package reliability is waltz's reliability suite. It has no API: its
// tests put a [waltz.Router] with the bundled middleware behind a real
// net/http server on loopback (127.0.0.1 only) and check what a production
// server must survive: many keep-alive connections, slow clients, graceful
// shutdown under load, panicking handlers, a soak of mixed requests,
// hostile input sent over raw TCP, and the composition of the bundled
// middleware around every kind of handler and request.
//
// Every test is named TestReliability… and runs at CI size by default, so
// that go test -race ./... stays within a few minutes on two cores; the
// -long flag runs each at full size:
//
//	go test -race ./reliability                          # CI size
//	go test ./reliability -run Reliability -long -timeout 30m -v
//
// fuzz.sh runs the root package's fuzz targets for a short time each.
// README.md says what each check measures, with figures.
package reliability
