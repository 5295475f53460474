module github.com/waltz-go/waltz/jwtauth

go 1.25.0

require (
	github.com/golang-jwt/jwt/v5 v5.3.1
	github.com/waltz-go/waltz v0.1.0
)
