package conduit_test

import (
	"testing"

	"github.com/waltz-go/waltz/contracttest"
	"github.com/waltz-go/waltz/examples/realworld/conduit"
	"golang.org/x/crypto/bcrypt"
)

// TestContract runs waltz's contract self-test on the API, on each
// engine: requests made from the served document (every operation, the
// boundaries of each rule, broken rules, left-out values, wrong types,
// other methods on each path, requests without the token), each answer
// checked against the document by libopenapi-validator. The token is a
// registered user's, so the operations behind it are tested with it and
// without it. No disagreement is accepted (Options.Known is empty).
func TestContract(t *testing.T) {
	engines(t, func(t *testing.T, s *server) {
		token := s.register(t, "contract")
		r := conduit.New(s.db, conduit.Options{Key: testKey, BcryptCost: bcrypt.MinCost})
		contracttest.Run(t, r, contracttest.Options{
			BaseURL:     s.url,
			Credentials: map[string]string{"Token": token},
		})
	})
}
