package middleware

import "context"

// requestID returns the request ID RequestID put in ctx, or "".
func requestID(ctx context.Context) string { return "" }
