//go:build !race

package jwtauth_test

const raceEnabled = false
