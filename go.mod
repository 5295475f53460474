module github.com/waltz-go/waltz

go 1.25
