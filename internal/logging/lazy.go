package logging

import (
	"context"
	"log/slog"
)

// With is l.With(args...) for a logger made on every call and seldom
// written to: slog's handlers format the attributes as soon as With is
// called, which cost the Igor several microseconds per task; here they are
// formatted only when a record is written.
func With(l *slog.Logger, args ...any) *slog.Logger {
	return slog.New(&lazyHandler{next: l.Handler(), args: args})
}

type lazyHandler struct {
	next slog.Handler
	args []any
}

func (h *lazyHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h *lazyHandler) Handle(ctx context.Context, r slog.Record) error {
	return h.bound().Handle(ctx, r)
}

func (h *lazyHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return h.bound().WithAttrs(attrs)
}

func (h *lazyHandler) WithGroup(name string) slog.Handler {
	return h.bound().WithGroup(name)
}

// bound is the handler with the attributes applied.
func (h *lazyHandler) bound() slog.Handler {
	return slog.New(h.next).With(h.args...).Handler()
}
