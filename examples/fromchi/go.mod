module github.com/waltz-go/waltz/examples/fromchi

go 1.26.0

require (
	github.com/go-chi/chi/v5 v5.5.0
	github.com/waltz-go/waltz v0.1.0
)
