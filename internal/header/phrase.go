package header

import "net/http"

// Phrase returns the reason phrase of the status code as RFC 9110 section
// 15 names it ("Content Too Large" for 413, "Unprocessable Content" for
// 422), where Go's [http.StatusText] keeps an older name, and
// http.StatusText's otherwise; "" for a code neither knows. It is the
// title of a problem document and the description of an answer in the
// OpenAPI document.
func Phrase(code int) string {
	switch code {
	case http.StatusRequestEntityTooLarge:
		return "Content Too Large" // section 15.5.14
	case http.StatusRequestURITooLong:
		return "URI Too Long" // section 15.5.15
	case http.StatusRequestedRangeNotSatisfiable:
		return "Range Not Satisfiable" // section 15.5.17
	case http.StatusUnprocessableEntity:
		return "Unprocessable Content" // section 15.5.21
	}
	return http.StatusText(code)
}
