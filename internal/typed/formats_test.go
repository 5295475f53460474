package typed

import "testing"

func TestFormats(t *testing.T) {
	for _, tc := range []struct {
		format, value string
		want          bool
	}{
		{"email", "a@example.com", true},
		{"email", "A <a@example.com>", false},
		{"email", "not an address", false},
		{"uuid", "123e4567-e89b-12d3-a456-426614174000", true},
		{"uuid", "123E4567-E89B-12D3-A456-426614174000", true},
		{"uuid", "123e4567e89b12d3a456426614174000", false},
		{"uuid", "123e4567-e89b-12d3-a456-42661417400g", false},
		{"uuid", "123e4567+e89b-12d3-a456-426614174000", false},
		{"date-time", "2006-01-02T15:04:05Z", true},
		{"date-time", "2006-01-02T15:04:05+07:00", true},
		{"date-time", "2006-01-02 15:04:05", false},
		{"date", "2006-01-02", true},
		{"date", "2006-02-30", false},
		{"date", "06-01-02", false},
		{"uri", "https://example.com/a", true},
		{"uri", "/relative", false},
		{"uri", "https://example.com/a b", false},
		{"uri", "%zz", false},
		{"ipv4", "192.0.2.1", true},
		{"ipv4", "192.0.2.01", false},
		{"ipv4", "2001:db8::1", false},
		{"ipv6", "2001:db8::1", true},
		{"ipv6", "fe80::1%eth0", false},
		{"ipv6", "192.0.2.1", false},
	} {
		if got := formats[tc.format](tc.value); got != tc.want {
			t.Errorf("%s %q: got %v, want %v", tc.format, tc.value, got, tc.want)
		}
		if formatWords[tc.format] == "" {
			t.Errorf("%s: no words for its messages", tc.format)
		}
	}
	if got := len(formatNames()); got != len(formats) {
		t.Errorf("got %d format names, want %d", got, len(formats))
	}
}
