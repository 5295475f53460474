package middleware

import (
	"context"
	"io"
	"log"
	"log/slog"
	"net"
)

type netConn = net.Conn

func newStdLog(w io.Writer) *log.Logger { return log.New(w, "", 0) }

func contextWith(ctx context.Context, k, v any) context.Context { return context.WithValue(ctx, k, v) }

// ctxHandler records the value under key in the context of each record.
type ctxHandler struct {
	slog.Handler
	seen *any
	key  any
}

func (h ctxHandler) Handle(ctx context.Context, r slog.Record) error {
	*h.seen = ctx.Value(h.key)
	return h.Handler.Handle(ctx, r)
}
