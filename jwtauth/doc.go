// Package jwtauth is waltz middleware that admits requests bearing a JSON
// Web Token (RFC 7519) signed by a key it trusts: a secret or public key
// held in the program, or the public keys of a JWK Set fetched over HTTPS
// from an identity provider, kept by kid and fetched again as the
// provider rotates them. Tokens are verified by golang-jwt
// (github.com/golang-jwt/jwt/v5) with the algorithms pinned, an expiry
// required and the issuer and audience checked when configured; a
// handler reads the verified claims, decoded into a type of its own, with
// [Claims].
//
//	r.Use(jwtauth.New[jwt.RegisteredClaims](jwtauth.Options{
//		JWKS:       jwtauth.JWKS{URL: jwksURL},
//		Algorithms: []string{"ES256"},
//		Issuer:     "https://id.example.com/",
//		Audience:   []string{"https://api.example.com"},
//	}))
//	r.Get("/me", func(c *waltz.Context) error {
//		return c.Text(http.StatusOK, "hello "+jwtauth.Claims[jwt.RegisteredClaims](c.Request.Context()).Subject)
//	})
//
// (from ExampleNew_jwks, where jwksURL is the provider's jwks_uri).
//
// It is a module of its own, github.com/waltz-go/waltz/jwtauth, so that
// the framework stays free of dependencies. See [New] for the rules a
// token must pass and the answers to those that do not, and [JWKS] for
// how keys are fetched.
package jwtauth
